/*
 * Compile-time constant, seen only by javac when it compiles HprofTracker:
 * this build of the tracker finds each thread's state in its own table
 * keyed by the Thread object (a running JVM's Thread cannot get fields, and
 * modes other than cpu=times give Thread none for the tracker). Never
 * embedded or loaded.
 */
package java.lang;

final class HprofTrackerVariant {
    static final boolean THREAD_FIELD = false;
}
