import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A steady mixed load (allocation, calls, four threads, a contended monitor) for the runs that
 *  send signals or dump requests or load a second agent. Prints "compat: ready" once running. */
public class Workload {
    static final Object lock = new Object();
    static long shared;

    static long work(int seed, int n) {
        Map<Integer, List<String>> map = new HashMap<>();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            List<String> list = map.computeIfAbsent((seed + i) % 512, k -> new ArrayList<>());
            list.add(Integer.toString(i));
            if (list.size() > 32) list.clear();
            sum += list.size();
            if (i % 1000 == 0) {
                synchronized (lock) {
                    shared++;
                }
            }
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("compat: shutdown hook")));
        long[] sums = new long[4];
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            int slot = t;
            threads[t] = new Thread(() -> sums[slot] = work(slot, n), "worker-" + t);
            threads[t].start();
        }
        System.out.println("compat: ready");
        System.out.flush();
        for (Thread t : threads) t.join();
        long total = 0;
        for (long s : sums) total += s;
        System.out.println("compat: workload sum=" + total + " shared=" + shared);
    }
}
