/**
 * Virtual threads that compute between parks (JDK 21+; started through
 * reflection, as this file compiles for 17): THREADS of them at once, each
 * doing ROUNDS rounds of burn() (about MS ms of CPU) then a 1 ms sleep, so
 * each mounts and unmounts ROUNDS times, on whichever carrier is free.
 * Usage: CpuTimesVirtualBusy THREADS ROUNDS MS
 */
public class CpuTimesVirtualBusy {
    static volatile long sink;

    static void burn(long ns) {
        long end = System.nanoTime() + ns, x = 0;
        while (System.nanoTime() < end)
            for (int i = 0; i < 1000; i++) x = x * 31 + i;
        sink += x;
    }

    static void task(int rounds, long ns) {
        try {
            for (int r = 0; r < rounds; r++) {
                burn(ns);
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]), rounds = Integer.parseInt(args[1]);
        long ns = Long.parseLong(args[2]) * 1_000_000L;
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start =
                Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) ts[i] = (Thread) start.invoke(builder, (Runnable) () -> task(rounds, ns));
        for (Thread t : ts) t.join();
    }
}
