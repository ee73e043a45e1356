/**
 * Micro-benchmark: call-heavy. Tiny non-trivial methods and deep recursion. Args: scale
 * [threads]: with threads > 1, each thread does the whole work at once (a profiler's per-thread
 * lookup, not contention, is what it measures).
 */
public final class Calls {
    private int state = 1;

    private int step(int x) {
        state = state * 31 + x;
        return state >>> 7;
    }

    private int twice(int x) {
        return step(x) ^ step(x + 1);
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long deep(int depth) {
        return depth == 0 ? 0 : 1 + deep(depth - 1);
    }

    static long work(double scale) {
        Calls c = new Calls();
        long check = 0;
        for (int i = 0; i < (int) (2_000_000_000 * scale); i++) check += c.twice(i);
        for (int i = 0; i < (int) (60 * scale) + 1; i++) check += fib(32);
        for (int i = 0; i < (int) (200_000 * scale) + 1; i++) check += deep(2000);
        return check;
    }

    public static void main(String[] args) throws InterruptedException {
        double scale = Double.parseDouble(args[0]);
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        if (threads == 1) {
            System.out.println("calls check=" + work(scale));
            return;
        }
        long[] checks = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int me = t;
            ts[t] = new Thread(() -> checks[me] = work(scale), "calls-" + t);
            ts[t].start();
        }
        long check = 0;
        for (int t = 0; t < threads; t++) {
            ts[t].join();
            check += checks[t];
        }
        System.out.println("calls check=" + check);
    }
}
