/* The dump sequence: at VM death (doe=y) and on every dump request
 * (SIGQUIT, jcmd JVMTI.data_dump), and the net= requests that write
 * between dumps. */
#ifndef HPROF_DUMP_H
#define HPROF_DUMP_H

#include "agent/core/mode.h"

#include <jvmti.h>

/* Writes every active mode's sections, in the documented order, then
 * resets per-dump data and flushes. Concurrent requests wait their turn. */
void hp_dump_all(jvmtiEnv *jvmti, JNIEnv *jni);
/* net= DUMP HEAP: the heap=dump section alone (no other mode, no reset),
 * nothing without heap=dump; then a flush. Waits for a dump in progress. */
void hp_dump_heap(jvmtiEnv *jvmti, JNIEnv *jni);
/* Hands a net= request to every active mode, between dumps; then a flush. */
void hp_dump_request(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r);

#endif
