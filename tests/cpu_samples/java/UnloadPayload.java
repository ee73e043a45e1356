/* Loaded again by a fresh class loader in every round of CpuUnload, so its
 * compiled code and jmethodIDs die with the loader. The shape switch at
 * the end of each round makes compiled code that assumed one receiver
 * class hit an uncommon trap (deoptimisation). */
public class UnloadPayload implements Runnable {
    interface Shape { long area(long i); }

    static final class Square implements Shape {
        public long area(long i) { return i * i; }
    }

    static final class Ring implements Shape {
        public long area(long i) { return 3 * i * i - (i >>> 1); }
    }

    static volatile long sink;

    static long sum(Shape s, long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += s.area(i) ^ x;
        return x;
    }

    public void run() {
        Shape square = new Square();
        for (int i = 0; i < 40; i++) sink += sum(square, 20_000);
        sink += sum(new Ring(), 200_000); /* deoptimises sum() */
    }
}
