/*
 * Compile-time constant, seen only by javac when it compiles HprofSites:
 * this build of the tracker keeps each thread's state in fields the
 * rewriter adds to java.lang.Thread (a recording started with the JVM).
 * javac inlines the constant and leaves the other variant's code out.
 * Never embedded or loaded.
 */
package java.lang;

final class HprofSitesVariant {
    static final boolean THREAD_FIELDS = true;
}
