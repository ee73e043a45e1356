/* CPU work in a virtual thread (JDK 21+; started by reflection so that the
 * class compiles for release 17). */
public class CpuVirtual {
    static volatile long sink;

    static long spin(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void virtualWork() {
        /* A virtual thread has no CPU-time clock of its own (the MXBean
         * answers -1), so the work is counted in units (~0.6 s of CPU). */
        for (int i = 0; i < 600; i++) {
            sink += spin(1_000_000);
            Thread.yield(); /* unmount and mount again, maybe on another carrier */
        }
    }

    public static void main(String[] args) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Runnable work = CpuVirtual::virtualWork;
        Thread t = (Thread) Class.forName("java.lang.Thread$Builder")
                .getMethod("start", Runnable.class).invoke(builder, work);
        t.join();
    }
}
