/* Rewriting the classes a running JVM has already loaded (an attached
 * cpu=times or cpu=old), and giving them their own bytes back at stop. */
#ifndef HPROF_INSTRUMENT_RETRANSFORM_H
#define HPROF_INSTRUMENT_RETRANSFORM_H

#include <jni.h>
#include <jvmti.h>

/* RetransformClasses on every modifiable loaded class but `skip` (the
 * tracker), in batches. A batch the JVM refuses is retried class by class,
 * and each class that still fails is reported (`what`: "rewrite" or
 * "restore") and left as it is. Returns the number retransformed; *loaded
 * gets the number of classes loaded. */
int hp_retransform_loaded(jvmtiEnv *jvmti, JNIEnv *jni, jclass skip, const char *what, int *loaded);

#endif
