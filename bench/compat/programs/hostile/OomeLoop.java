import java.util.ArrayList;
import java.util.List;

/** Fills the heap until OutOfMemoryError, catches it and starts again. */
public class OomeLoop {
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        int caught = 0;
        for (int r = 0; r < rounds; r++) {
            List<Object> hog = new ArrayList<>();
            try {
                while (true) hog.add(new long[16 * 1024]);
            } catch (OutOfMemoryError e) {
                hog = null;
                caught++;
            }
        }
        System.out.println("compat: oome caught=" + caught);
    }
}
