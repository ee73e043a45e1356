/* Rewriting the classes a running JVM has already loaded (an attached
 * cpu=times or cpu=old), and giving every rewritten class its own bytes
 * back at stop. */
#ifndef HPROF_INSTRUMENT_RETRANSFORM_H
#define HPROF_INSTRUMENT_RETRANSFORM_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* What one pass did and cost the calling thread (the safepoints it asks
 * for are the JVM's own; -Xlog:safepoint shows them). */
struct hp_retransform_cost {
    int loaded, done;         /* classes loaded, classes retransformed */
    uint64_t wall_ns, cpu_ns; /* elapsed, and the calling thread's CPU time */
};

/* RetransformClasses on every modifiable loaded class but the n_skip
 * classes of `skip` (the hook classes, and those whose fields the rewrite
 * changed), in batches. A batch the JVM refuses is retried class by class,
 * and each class that still fails is reported (`what`: "rewrite" or
 * "restore") and left as it is. */
struct hp_retransform_cost hp_retransform_loaded(jvmtiEnv *jvmti, JNIEnv *jni, const jclass *skip,
                                                 int n_skip, const char *what);

#endif
