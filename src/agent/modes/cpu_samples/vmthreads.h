/* CPU time of the threads no timer samples: the VM's own (GC, JIT, VM
 * operations, service threads), the agent's, and any other thread that runs
 * no Java code. Each poll lists the process's threads, reads each such
 * thread's CPU-time clock, and turns what it used into samples of its kind's
 * pseudo-frame: one per `interval` of CPU, rounded to the nearest and the
 * difference carried to the next poll, so these counts are exact to half a
 * sample per kind. */
#ifndef HPROF_CPU_VMTHREADS_H
#define HPROF_CPU_VMTHREADS_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* Also forgets the threads of an earlier recording (a new one after `stop`). */
void hp_vmthreads_init(int interval_ms);
/* The first poll (VM_INIT) also counts what every thread used before: the
 * VM's threads under their kinds, the Java threads' under <VM>.startup;
 * attached to a running VM it only notes where each thread's clock stands. */
/* Returns the samples it added. */
uint64_t hp_vmthreads_poll(jvmtiEnv *jvmti, JNIEnv *jni);
/* net= CONTROL: while off, polls count nothing (for every thread only). */
void hp_vmthreads_set_running(bool on);

#endif
