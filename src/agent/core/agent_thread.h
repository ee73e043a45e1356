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
/* Forgets the threads started so far, once they have ended (a recording
 * stopped in a live VM), so that the next recording has room for its own. */
void hp_agent_threads_forget(JNIEnv *jni);
/* True if `thread` is one the agent started. */
bool hp_is_agent_thread(JNIEnv *jni, jthread thread);

#endif
