/*
 * Compile-time constant, seen only by javac when it compiles HprofSites:
 * this build of the tracker finds each thread's state in a table keyed by
 * the Thread object (a recording attached to a running JVM, whose Thread
 * class cannot get new fields). Never embedded or loaded.
 */
package java.lang;

final class HprofSitesVariant {
    static final boolean THREAD_FIELDS = false;
}
