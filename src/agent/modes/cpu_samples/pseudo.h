/* Pseudo-frames: CPU time spent outside Java code, or in Java code whose
 * stack could not be walked, as one-frame traces that read like Java frames:
 * "<GC>.workers(<Unknown Source>:Unknown line)". The class part names the
 * kind ("<GC>", "<JIT>", "<VM>", "<hprof>", "<unwalkable>"); no Java class
 * name starts with '<'. */
#ifndef HPROF_CPU_PSEUDO_H
#define HPROF_CPU_PSEUDO_H

#include <jvmti.h>
#include <stdint.h>

enum hp_pseudo {
    HP_PSEUDO_GC_WORKERS,
    HP_PSEUDO_GC_CONCURRENT_MARK,
    HP_PSEUDO_GC_REFINEMENT,
    HP_PSEUDO_GC_SERVICE,
    HP_PSEUDO_JIT_C2,
    HP_PSEUDO_JIT_C1,
    HP_PSEUDO_JIT_SWEEPER,
    HP_PSEUDO_VM_OPERATIONS,
    HP_PSEUDO_VM_PERIODIC_TASK,
    HP_PSEUDO_VM_SERVICE_THREADS,
    HP_PSEUDO_VM_STARTUP,
    HP_PSEUDO_VM_OTHER_THREADS,
    HP_PSEUDO_AGENT_THREADS,
    HP_PSEUDO_UNWALKABLE_NO_JAVA_FRAME,
    HP_PSEUDO_UNWALKABLE_IN_GC,
    HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA,
    HP_PSEUDO_UNWALKABLE_IN_JAVA,
    HP_PSEUDO_UNWALKABLE_DEOPTIMIZING,
    HP_PSEUDO_UNWALKABLE_AT_SAFEPOINT,
    HP_PSEUDO_UNWALKABLE_THREAD_EXIT,
    HP_PSEUDO_UNWALKABLE_OTHER,
    HP_PSEUDO_COUNT
};

/* The kind of a thread the VM made for itself, from its OS thread name
 * (HotSpot's names, cut to 15 bytes): GC, JIT, VM threads, the agent's own. */
enum hp_pseudo hp_pseudo_of_thread_name(const char *comm);
/* Why AsyncGetCallTrace could not walk a Java thread's stack, from its
 * result (0 or a negative error code). */
enum hp_pseudo hp_pseudo_of_walk_error(int num_frames);
/* A new recording after `stop`, with new tables: no pseudo-frame made yet. */
void hp_pseudo_forget(void);
/* The trace of `kind` (thread=y: of that thread, 0 for none); 0 on failure. */
uint32_t hp_pseudo_trace(jvmtiEnv *jvmti, JNIEnv *jni, enum hp_pseudo kind, uint32_t thread_serial);

#endif
