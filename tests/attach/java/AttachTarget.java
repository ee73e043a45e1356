/* A program to attach to: it works until a line arrives on stdin, then
 * prints a fixed line and exits with code 3, so that a test can compare its
 * output and exit code with and without an attached agent.
 *
 * Work: heavy() runs three units of the same loop for every unit of
 * light() (a 3:1 CPU split); each round also allocates Blob objects (for
 * heap=sites) and waits on a monitor briefly (for monitor=y). A round lasts
 * many 10 ms sampling intervals, so samples cannot alias with it. */
import java.util.ArrayList;
import java.util.List;

public class AttachTarget {
    static final long UNIT = 4_000_000;
    static volatile long sink;
    static volatile boolean quit;
    static final List<Blob> kept = new ArrayList<>();

    static class Blob {
        final byte[] data = new byte[10_000];
    }

    static long unit(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void heavy() { sink += unit(3 * UNIT); }

    static void light() { sink += unit(UNIT); }

    static void allocate() {
        kept.add(new Blob());
        if (kept.size() > 1000) kept.clear();
    }

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            try {
                System.in.read();
            } catch (java.io.IOException e) {
                // end of input: quit as well
            }
            quit = true;
        });
        reader.setDaemon(true);
        reader.start();
        System.out.println("ready");
        System.out.flush();
        Object lock = new Object();
        while (!quit) {
            heavy();
            light();
            for (int i = 0; i < 100; i++) allocate();
            synchronized (lock) {
                lock.wait(1);
            }
        }
        System.out.println("done");
        System.exit(3);
    }
}
