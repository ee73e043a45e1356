import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/* Phase 1 runs only heavy(), then waits for a line on stdin (the driver
 * requests a dump meanwhile); phase 2 runs only light(). With counts reset
 * at each dump, the second report holds no heavy() samples. */
public class CpuPhases {
    static volatile long sink;

    static long unit(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void heavy() { sink += unit(1_000_000); }

    static void light() { sink += unit(1_000_000); }

    /* Runs for `ms` of this thread's CPU time, however busy the machine is. */
    static void run(boolean first, long ms) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long end = bean.getCurrentThreadCpuTime() + ms * 1_000_000L;
        while (bean.getCurrentThreadCpuTime() < end) {
            if (first) heavy(); else light();
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        run(true, ms);
        System.out.println("phase1 done");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        run(false, ms);
    }
}
