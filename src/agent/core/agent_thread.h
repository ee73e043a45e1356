/* Agent threads: Java threads the agent runs (samplers, listeners). They
 * are flagged so that no mode ever profiles them. */
#ifndef HPROF_AGENT_THREAD_H
#define HPROF_AGENT_THREAD_H

#include <jvmti.h>
#include <stdbool.h>

/* Starts a daemon thread named `name` running fn(arg); false on failure.
 * Call from the live phase (VM_INIT or later). */
bool hp_agent_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction fn,
                           void *arg);
/* True if `thread` is one the agent started. */
bool hp_is_agent_thread(JNIEnv *jni, jthread thread);

#endif
