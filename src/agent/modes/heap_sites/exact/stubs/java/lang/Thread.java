/*
 * Compile-time stand-in for java.lang.Thread, seen only by javac when it
 * compiles HprofSites: it declares the fields the rewriter appends to the real
 * Thread (exact.c: field_class), so that HprofSites reads it with a plain
 * getfield, which the JIT compiles to one load. Never embedded or loaded.
 */
package java.lang;

public class Thread implements Runnable {
    HprofSites hprofSites;
    long hprofWin;
    int[] hprofStk;
    int hprofSp;

    public static native Thread currentThread();

    public final boolean isVirtual() {
        return false;
    }

    public static void onSpinWait() {}

    public final native boolean isAlive();

    @Override
    public void run() {}
}
