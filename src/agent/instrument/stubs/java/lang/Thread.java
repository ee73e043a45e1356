/*
 * Compile-time stand-in for java.lang.Thread, seen only by javac when it
 * compiles HprofTracker: the source level is 17, and isVirtual (JDK 21+) is
 * called only when the JVM has it. Never embedded or loaded.
 */
package java.lang;

public class Thread implements Runnable {
    public static native Thread currentThread();

    public static void onSpinWait() {}

    public final native boolean isAlive();

    public final boolean isVirtual() {
        return false;
    }

    @Override
    public void run() {}
}
