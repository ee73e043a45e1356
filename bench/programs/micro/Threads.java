import java.util.ArrayList;
import java.util.List;

/**
 * Micro-benchmark: many threads. Waves of short-lived threads (thread start/end churn) that
 * contend on a few shared monitors. Args: scale
 */
public final class Threads {
    private static final Object[] LOCKS = {new Object(), new Object(), new Object(), new Object()};
    private static final long[] COUNTS = new long[LOCKS.length];

    public static void main(String[] args) throws InterruptedException {
        int waves = (int) (400 * Double.parseDouble(args[0])) + 1;
        for (int w = 0; w < waves; w++) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                int id = t;
                Thread th = new Thread(() -> work(id), "worker-" + w + "-" + t);
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) th.join();
        }
        long total = 0;
        for (long c : COUNTS) total += c;
        System.out.println("threads waves=" + waves + " total=" + total);
    }

    private static void work(int id) {
        long local = 0;
        for (int i = 0; i < 2000; i++) {
            int k = (id + i) & (LOCKS.length - 1);
            synchronized (LOCKS[k]) {
                COUNTS[k] += i;
            }
            for (int j = 0; j < 200; j++) local += j ^ i;
        }
        if (local == 42) System.out.println();
    }
}
