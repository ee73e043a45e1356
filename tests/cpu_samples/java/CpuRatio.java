/* Two CPU-bound methods in a 3:1 ratio of identical work units, on one
 * thread: heavy() runs three units for every unit of light(). A round
 * lasts many sampling intervals, so that samples cannot alias with it. */
public class CpuRatio {
    static final long UNIT = 20_000_000;
    static volatile long sink;

    static long unit(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void heavy() { sink += unit(3 * UNIT); }

    static void light() { sink += unit(UNIT); }

    public static void main(String[] args) {
        for (int round = Integer.parseInt(args[0]); round > 0; round--) {
            heavy();
            light();
        }
        /* The CPU time that cpu=samples should have sampled, for the interval check. */
        long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        System.out.println("cpu_ms=" + cpu / 1_000_000);
    }
}
