/* Known counts in virtual threads (JDK 21+; started by reflection so that
 * the class compiles for release 17): args[0] virtual threads, each
 * allocating 10 VirtualKnown.Marker in work() and calling counted() 3
 * times; with args[1] = "spin" each also spins on the CPU in spin(). */
public class VirtualKnown {
    static final class Marker {
        final int v;

        Marker(int v) {
            this.v = v;
        }
    }

    static volatile Object sink;
    static volatile long total;

    static void counted(int i) {
        total += i;
    }

    static long spin(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += (x ^ i) * 31 + (i >>> 3);
        return x;
    }

    static void work(int i, boolean spin) {
        for (int k = 0; k < 10; k++) sink = new Marker(k + i);
        for (int k = 0; k < 3; k++) counted(k);
        if (spin) total += spin(2_000_000);
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean spin = args.length > 1 && args[1].equals("spin");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start =
                Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            ts[i] = (Thread) start.invoke(builder, (Runnable) () -> work(id, spin));
        }
        for (Thread t : ts) t.join();
        System.out.println("done " + n);
    }
}
