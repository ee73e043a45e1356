/* A program with known call counts, to attach cpu=times to: each line
 * "go N" on stdin makes it call counted() exactly N times (from run(), once)
 * and print "ran N"; "q" (or the end of input) prints "done" and exits with
 * code 3. main() runs from before any attach to the end: its own frame is
 * one an attached recording never sees enter. */
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class CountTarget {
    static volatile long sink;

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
            if (!line.startsWith("go ")) continue;
            int n = Integer.parseInt(line.substring(3).trim());
            run(n);
            System.out.println("ran " + n);
            System.out.flush();
        }
        System.out.println("done");
        System.exit(3);
    }
}
