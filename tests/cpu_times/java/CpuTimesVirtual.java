/**
 * Virtual threads (JDK 21+; started through reflection, as this file
 * compiles for 17): THREADS of them in waves of WAVE, each wave joined
 * before the next starts, each calling task() once and vwork() K times.
 * Usage: CpuTimesVirtual THREADS WAVE K
 */
public class CpuTimesVirtual {
    static long sink;

    static void vwork() {
        sink++;
    }

    static void task(int k) {
        for (int j = 0; j < k; j++) vwork();
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]), wave = Integer.parseInt(args[1]), k = Integer.parseInt(args[2]);
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start =
                Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[wave];
        for (int first = 0; first < n; first += wave) {
            int m = Math.min(wave, n - first);
            for (int i = 0; i < m; i++) ts[i] = (Thread) start.invoke(builder, (Runnable) () -> task(k));
            for (int i = 0; i < m; i++) ts[i].join();
        }
    }
}
