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

    /* The long form (bci BCI_LOCAL_LONG): the same height, widened; the
     * method comes as its number + 1 in bits 40 and up (bci_agent.c). */
    public static long enterWide(long method) {
        return enterLocal((int) (method >>> 40) - 1);
    }

    public static void exitWide(long at) {
        exitLocal((int) at);
    }

    public static void resumeWide(long at, long method) {
        resumeLocal((int) at);
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

    /* With bci alloc_local: the allocating frame's local, the height below
     * it, so the height is one more (-1: entered before watching began). */
    public static void onNew(int site, long at) {
        checkAt(at);
        onNew(site);
    }

    public static void onArray(Object array, int site, long at) {
        checkAt(at);
        onArray(array, site);
    }

    private static void checkAt(long at) {
        if (at >= 0 && mine() && at + 1 != depth) wrong++;
    }

    public static void objectInit(Object o) {
        if (mine()) objectInits++;
    }
}
