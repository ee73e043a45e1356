/* Thread churn: thousands of short-lived threads, each burning a little
 * CPU, so that timers are created and deleted all the time and OS thread
 * ids get reused while signals are in flight. */
public class CpuChurn {
    static volatile long sink;

    static void work() {
        long x = 0;
        for (int i = 0; i < 2_000_000; i++) x += (x ^ i) * 31;
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        int total = Integer.parseInt(args[0]);
        Thread[] batch = new Thread[8];
        for (int n = 0; n < total; n += batch.length) {
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new Thread(CpuChurn::work, "churn-" + (n + i));
                batch[i].start();
            }
            for (Thread t : batch) t.join();
        }
        System.out.println("churned " + total);
    }
}
