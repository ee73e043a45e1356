import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Thousands of short threads in waves, each allocating and contending on a shared monitor. */
public class ManyThreads {
    static final Object lock = new Object();
    static long shared;

    public static void main(String[] args) throws Exception {
        int total = Integer.parseInt(args[0]);
        int wave = 200;
        AtomicLong work = new AtomicLong();
        for (int started = 0; started < total; started += wave) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < wave && started + i < total; i++) {
                int id = started + i;
                Thread t = new Thread(() -> {
                    StringBuilder sb = new StringBuilder();
                    for (int k = 0; k < 50; k++) sb.append(id).append(',');
                    synchronized (lock) {
                        shared += sb.length();
                    }
                    work.addAndGet(sb.length());
                }, "short-" + id);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) t.join();
        }
        System.out.println("compat: threads=" + total + " work=" + work.get() + " shared=" + shared);
    }
}
