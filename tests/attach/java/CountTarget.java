/* A program with known call and allocation counts, to attach the exact
 * modes to: each line "go N" on stdin makes it call counted() exactly N
 * times (from run(), once), "foos N" makes N Foo objects in makeFoos() and
 * "ints N" N int[8] arrays in makeInts(), all kept live; it then prints
 * "ran N". "q" (or the end of input) prints "done" and exits with code 3.
 * main() runs from before any attach to the end: its own frame is one an
 * attached recording never sees enter. */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;

public class CountTarget {
    static volatile long sink;
    static final ArrayList<Object> kept = new ArrayList<>();

    static final class Foo {
        final int i;

        Foo(int i) {
            this.i = i;
        }
    }

    static void makeFoos(int n) {
        Foo[] made = new Foo[n];
        for (int i = 0; i < n; i++) made[i] = new Foo(i);
        kept.add(made);
    }

    static void makeInts(int n) {
        int[][] made = new int[n][];
        for (int i = 0; i < n; i++) made[i] = new int[8];
        kept.add(made);
    }

    static void counted(int i) {
        sink += i;
        if ((i & 1023) == 0) Thread.yield();
    }

    static void run(int n) {
        for (int i = 0; i < n; i++) counted(i);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready");
        System.out.flush();
        for (String line; (line = in.readLine()) != null && !line.equals("q");) {
            String[] words = line.trim().split(" ");
            if (words.length != 2) continue;
            int n = Integer.parseInt(words[1]);
            if (words[0].equals("go")) run(n);
            else if (words[0].equals("foos")) makeFoos(n);
            else if (words[0].equals("ints")) makeInts(n);
            else continue;
            System.out.println("ran " + n);
            System.out.flush();
        }
        System.out.println("done");
        System.exit(3);
    }
}
