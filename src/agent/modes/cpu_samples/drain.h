/* Moving queued samples into the trace and count tables: JVM TI work that
 * the signal handler cannot do. The "HPROF cpu sampling thread" drains
 * while the program runs; a dump drains once more before it reports. */
#ifndef HPROF_CPU_DRAIN_H
#define HPROF_CPU_DRAIN_H

#include <jvmti.h>
#include <stdbool.h>

bool hp_drain_thread_start(jvmtiEnv *jvmti, JNIEnv *jni);
/* Drains everything queued so far. */
void hp_drain_now(jvmtiEnv *jvmti, JNIEnv *jni);
/* Ends the thread's work; returns once it is not draining. */
void hp_drain_thread_stop(void);
/* With verbose=y, one line on stderr if samples were lost. */
void hp_drain_report_losses(void);

#endif
