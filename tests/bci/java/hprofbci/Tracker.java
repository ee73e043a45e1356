package hprofbci;

/**
 * Test tracker patched into java.base (--patch-module) so that every class,
 * java.base included, can call it.  It only counts, and only for the thread
 * in {@link #watched}, using nothing that is itself instrumented
 * (Thread.currentThread is native).
 */
public final class Tracker {
    public static volatile Thread watched;
    public static long entries, exits, news, arrays, objectInits;
    /* entry_local hooks: the watched thread's shadow-stack height, and how
     * often the program found it wrong. */
    public static int depth, wrong;

    private Tracker() {}

    private static boolean mine() {
        Thread w = watched;
        return w != null && Thread.currentThread() == w;
    }

    public static int enterLocal(int mnum) {
        if (!mine()) return -1;
        entries++;
        return depth++;
    }

    public static void exitLocal(int at) {
        if (at >= 0 && mine()) {
            exits++;
            depth = at;
        }
    }

    public static void resumeLocal(int at) {
        if (at >= 0 && mine()) depth = at + 1;
    }

    public static void entry(int cnum, int mnum) {
        if (mine()) entries++;
    }

    public static void exit(int cnum, int mnum) {
        if (mine()) exits++;
    }

    public static void onNew(int site) {
        if (mine()) news++;
    }

    public static void onArray(Object array, int site) {
        if (array == null) throw new IllegalStateException("null array");
        if (mine()) arrays++;
    }

    public static void objectInit(Object o) {
        if (mine()) objectInits++;
    }
}
