import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/** Works on request for the net= tests. Each stdin line is one step; the
 * program answers "OK <line>" when it is done:
 *   keep N     allocates N Kept objects and holds them
 *   junk N     allocates N Junk objects (64-byte payload each) and drops them
 *   off N      allocates N Untracked objects and holds them
 *   fresh      allocates one Fresh object at a site of its own, below main
 *   spin MS    burns about MS ms of CPU in spin()
 *   weak       makes an object reachable only through a weak reference
 *   weak?      answers "OK weak? cleared" or "OK weak? alive"
 *   exit       returns from main */
public class NetProg {
    static class Kept {}
    static class Junk { long a, b, c, d, e, f, g, h; }
    static class Untracked {}
    static class Fresh {}

    static final List<Object> held = new ArrayList<>();
    static volatile Object sink;
    static volatile long spun;
    static WeakReference<Object> weak;

    static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        long x = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10000; i++) x = x * 31 + i;
        }
        spun = x;
    }

    static Object fresh() {
        return new Fresh();
    }

    static Object outer() {
        return fresh();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null && !line.equals("exit")) {
            String[] w = line.split(" ");
            int n = w.length > 1 ? Integer.parseInt(w[1]) : 0;
            String answer = line;
            switch (w[0]) {
                case "keep": for (int i = 0; i < n; i++) held.add(new Kept()); break;
                case "junk": for (int i = 0; i < n; i++) sink = new Junk(); break;
                case "off": for (int i = 0; i < n; i++) held.add(new Untracked()); break;
                case "fresh": held.add(outer()); break;
                case "spin": spin(n); break;
                case "weak": weak = new WeakReference<>(new Object()); break;
                case "weak?": answer += weak.get() == null ? " cleared" : " alive"; break;
                default: answer = "unknown " + line;
            }
            System.out.println("OK " + answer);
            System.out.flush();
        }
    }
}
