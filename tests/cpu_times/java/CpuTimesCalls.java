import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Calls methods a known number of times: a leaf N times, JDK methods 20 N
 * times (enough for the JIT to compile them), a method through a method
 * handle N times, a recursion, an
 * exception thrown through several frames, a thread killed by an uncaught
 * exception, THREADS threads each calling work() M times, and 200 short
 * threads calling brief() 100 times each.
 * Usage: CpuTimesCalls N M
 */
public class CpuTimesCalls {
    static final int THREADS = 8;
    static long sink;

    static void leaf(int i) {
        sink += i;
    }

    /* JDK methods: Integer.compare is counted like any method; Math.max is
     * a JIT intrinsic, left uninstrumented. */
    static int jdk(int i) {
        return Integer.compare(i, 7) + Math.max(i, 3);
    }

    /* Called through a MethodHandle: between it and main run LambdaForms,
     * some compiled into java.lang.invoke's Holder classes, others spun as
     * hidden classes once the handle is customized. */
    static int viaHandle(int i) {
        return i + 1;
    }

    static int rec(int n) {
        return n <= 0 ? 0 : 1 + rec(n - 1);
    }

    static void thrower(int d) {
        if (d == 0) throw new IllegalStateException("expected");
        thrower(d - 1);
    }

    static void catcher() {
        try {
            thrower(3);
        } catch (IllegalStateException e) {
            sink++;
        }
    }

    static void dies() {
        throw new RuntimeException("uncaught on purpose: ends the thread");
    }

    static synchronized void work() {
        sink++;
    }

    static final class Dying extends Thread {
        Dying() {
            super("dying");
        }

        @Override
        public void run() {
            dies();
        }
    }

    static void brief() {
        sink++;
    }

    /* Short-lived: 200 of them, in batches, churn the tracker's thread table. */
    static final class Brief extends Thread {
        @Override
        public void run() {
            for (int j = 0; j < 100; j++) brief();
        }
    }

    static final class Worker extends Thread {
        final int m;

        Worker(int i, int m) {
            super("worker-" + i);
            this.m = m;
        }

        @Override
        public void run() {
            for (int j = 0; j < m; j++) work();
        }
    }

    public static void main(String[] args) throws Throwable {
        int n = Integer.parseInt(args[0]), m = Integer.parseInt(args[1]);
        for (int i = 0; i < n; i++) leaf(i);
        for (int i = 0; i < 20 * n; i++) sink += jdk(i);
        MethodHandle h = MethodHandles.lookup().findStatic(CpuTimesCalls.class, "viaHandle",
                MethodType.methodType(int.class, int.class));
        for (int i = 0; i < n; i++) sink += (int) h.invokeExact(i);
        for (int i = 0; i < 5; i++) rec(6);
        for (int i = 0; i < 9; i++) catcher();
        Thread d = new Dying();
        d.setUncaughtExceptionHandler(new Quiet());
        d.start();
        d.join();
        Thread[] ws = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) ws[i] = new Worker(i, m);
        for (Thread w : ws) w.start();
        for (Thread w : ws) w.join();
        for (int batch = 0; batch < 8; batch++) {
            Thread[] bs = new Thread[25];
            for (int i = 0; i < bs.length; i++) (bs[i] = new Brief()).start();
            for (Thread b : bs) b.join();
        }
        System.out.println("sink " + sink);
    }

    static final class Quiet implements Thread.UncaughtExceptionHandler {
        @Override
        public void uncaughtException(Thread t, Throwable e) {
            System.out.println("uncaught in " + t.getName() + ": " + e.getMessage());
        }
    }
}
