import java.io.BufferedReader;
import java.io.InputStreamReader;

/** For each stdin line "go" calls leaf() 1000 times and answers "OK"; "exit" ends. */
public class CpuTimesDumps {
    static long sink;

    static void leaf(int i) {
        sink += i;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null && !line.equals("exit")) {
            for (int i = 0; i < 1000; i++) leaf(i);
            System.out.println("OK " + line);
            System.out.flush();
        }
    }
}
