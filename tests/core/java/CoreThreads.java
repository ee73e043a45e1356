import java.util.ArrayList;
import java.util.List;

/** Starts named threads: five that run and end, one daemon alive at exit. */
public class CoreThreads {
    static volatile Object sink;

    static void depth(int n) {
        if (n == 0) {
            for (int i = 0; i < 1000; i++) sink = new int[i % 50 + 1];
            return;
        }
        depth(n - 1);
    }

    public static void main(String[] args) throws Exception {
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Thread t = new Thread(() -> depth(10), "worker-" + i);
            t.start();
            workers.add(t);
        }
        for (Thread t : workers) t.join();
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException e) {
                // exit quietly
            }
        }, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        depth(10);
        System.out.println("done");
    }
}
