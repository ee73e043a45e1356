/* A program with known behaviour for the profile commands: hot() does three
 * work units for every one of cold(), on two threads, and allocates 1000
 * byte[4096] in allocBig() and 5000 small Integer[] in allocSmall(); an
 * optional third argument keeps that many more ProfExtra objects. */
public class ProfHot {
    static volatile long sink;
    static final java.util.List<Object> keep = new java.util.ArrayList<>();

    static long unit(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void hot(long n) { sink += unit(3 * n); }

    static void cold(long n) { sink += unit(n); }

    static void allocBig() {
        for (int i = 0; i < 1000; i++) keep.add(new byte[4096]);
    }

    static void allocSmall() {
        for (int i = 0; i < 5000; i++) keep.add(new Integer[2]);
    }

    static void work(int rounds, long n) {
        for (int r = 0; r < rounds; r++) {
            hot(n);
            cold(n);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        long n = Long.parseLong(args[1]);
        allocBig();
        allocSmall();
        for (int i = args.length > 2 ? Integer.parseInt(args[2]) : 0; i > 0; i--)
            keep.add(new ProfExtra());
        Thread t = new Thread(() -> work(rounds, n), "worker");
        t.start();
        work(rounds, n);
        t.join();
        System.out.println(sink != 42 ? "ok" : "?");
    }
}

class ProfExtra {
    long a, b;
}
