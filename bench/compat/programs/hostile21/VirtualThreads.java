import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/** 100,000 virtual threads that sleep, park, lock (synchronized and ReentrantLock) and allocate. */
public class VirtualThreads {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        AtomicLong sum = new AtomicLong();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                int id = i;
                pool.submit(() -> {
                    String s = "v" + id;
                    if (id % 3 == 0) Thread.sleep(1);
                    if (id % 3 == 1) {
                        synchronized (monitor) {
                            sum.addAndGet(s.length());
                        }
                    } else {
                        lock.lock();
                        try {
                            sum.addAndGet(s.length());
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                });
            }
        }
        System.out.println("compat: virtual threads=" + n + " sum=" + sum.get());
    }
}
