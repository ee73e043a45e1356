/*
 * Compile-time stand-in for java.lang.Thread, seen only by javac when it
 * compiles HprofTracker: the source level is 17, and isVirtual (JDK 21+) is
 * called only when the JVM has it. It declares the field the rewriter
 * appends to the real Thread for cpu=times started with the JVM
 * (instrument.c: tracker_thread_field), read with a plain getfield. Never
 * embedded or loaded.
 */
package java.lang;

public class Thread implements Runnable {
    HprofTracker hprofTracker;

    public static native Thread currentThread();

    public static void onSpinWait() {}

    public final native boolean isAlive();

    public final boolean isVirtual() {
        return false;
    }

    @Override
    public void run() {}
}
