/* Moving queued samples into the trace and count tables: JVM TI work that
 * the signal handler cannot do. The "HPROF cpu sampling thread" drains
 * while the program runs; a dump drains once more before it reports. */
#ifndef HPROF_CPU_DRAIN_H
#define HPROF_CPU_DRAIN_H

#include <jvmti.h>
#include <stdbool.h>

/* Traces keep at most `depth` frames; a sample stands for `interval_ms` of
 * CPU; `java_only` (javaonly=y) leaves out unwalkable samples and the CPU of
 * threads that run no Java code. Also takes the samples noted in agent code
 * (core/in_agent.h) from now on. */
void hp_drain_init(int depth, int interval_ms, bool java_only);
bool hp_drain_thread_start(jvmtiEnv *jvmti, JNIEnv *jni);
/* Drains everything queued so far and polls the VM's threads. */
void hp_drain_now(jvmtiEnv *jvmti, JNIEnv *jni);
/* Ends the thread's work and the samples of agent code; returns once it is
 * not draining. */
void hp_drain_thread_stop(void);
/* With verbose=y, one line on stderr: samples by how they were taken, and
 * how many were lost. */
void hp_drain_report(void);
/* After hp_drain_thread_stop, when the recording ends in a live VM: waits
 * for the thread to end and clears the counts for the next start. */
void hp_drain_thread_join(void);

#endif
