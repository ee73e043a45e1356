import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/* CPU work on the JVM's "Finalizer" thread, which exists before any agent
 * sees VM_INIT: its samples must be counted and, with thread=y, be
 * attributed to it. */
public class CpuFinalizer {
    static final CountDownLatch done = new CountDownLatch(1);
    static volatile long sink;

    static final class Heavy {
        @Override
        @SuppressWarnings({"deprecation", "removal"})
        protected void finalize() {
            ThreadMXBean bean = ManagementFactory.getThreadMXBean();
            long end = bean.getCurrentThreadCpuTime() + 500_000_000L;
            long x = 0;
            while (bean.getCurrentThreadCpuTime() < end)
                for (int i = 0; i < 100_000; i++) x += (x ^ i) * 31;
            sink = x;
            done.countDown();
        }
    }

    public static void main(String[] args) throws Exception {
        new Heavy();
        for (int i = 0; i < 100 && done.getCount() > 0; i++) {
            System.gc();
            done.await(100, TimeUnit.MILLISECONDS);
        }
        if (!done.await(60, TimeUnit.SECONDS)) throw new AssertionError("never finalized");
    }
}
