/* The dump sequence: at VM death (doe=y) and on every dump request
 * (SIGQUIT, jcmd JVMTI.data_dump). */
#ifndef HPROF_DUMP_H
#define HPROF_DUMP_H

#include <jvmti.h>

/* Writes every active mode's sections, in the documented order, then
 * resets per-dump data and flushes. Concurrent requests wait their turn. */
void hp_dump_all(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
