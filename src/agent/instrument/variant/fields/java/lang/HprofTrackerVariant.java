/*
 * Compile-time constant, seen only by javac when it compiles HprofTracker:
 * this build of the tracker finds each thread's state in a field the
 * rewriter adds to java.lang.Thread (cpu=times started with the JVM).
 * javac inlines the constant and leaves the other variant's code out.
 * Never embedded or loaded.
 */
package java.lang;

final class HprofTrackerVariant {
    static final boolean THREAD_FIELD = true;
}
