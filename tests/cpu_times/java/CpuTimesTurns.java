/**
 * Two threads taking turns K times each (a handoff through a
 * SynchronousQueue-free ping-pong on a volatile), each turn calling
 * turn() once; then prints whether java.lang.Thread has the field
 * hprofTracker that cpu=times started with the JVM gives it.
 * Usage: CpuTimesTurns K
 */
public class CpuTimesTurns {
    static volatile int next;
    static long sink;

    static void turn(int me) {
        sink += me;
    }

    static void play(int me, int k) {
        for (int i = 0; i < k; i++) {
            while (next != me) Thread.onSpinWait();
            turn(me);
            next = 1 - me;
        }
    }

    public static void main(String[] args) throws Exception {
        int k = Integer.parseInt(args[0]);
        Thread a = new Thread(() -> play(0, k)), b = new Thread(() -> play(1, k));
        a.start();
        b.start();
        a.join();
        b.join();
        boolean field;
        try {
            Thread.class.getDeclaredField("hprofTracker");
            field = true;
        } catch (NoSuchFieldException e) {
            field = false;
        }
        System.out.println("field=" + field);
    }
}
