/* Agent code running on an application thread: the trackers' JNI natives
 * and JVM TI event callbacks. AsyncGetCallTrace often cannot walk out of
 * native code (it fails with "not walkable"), so cpu=samples only notes a
 * sample that arrives in such a section (hp_in_agent_note, from its signal
 * handler) and takes it when the outermost section ends, with GetStackTrace.
 * The agent's own frames are cut from traces, so the agent's cost is charged
 * to the Java frame that called into it.
 *
 * A thread that calls into the agent between two samples (the allocation
 * hooks do, at every allocation) spends time in the VM's allocation slow
 * paths too, where AsyncGetCallTrace fails as well. Such a sample is
 * deferred (hp_in_agent_defer) to the thread's next agent section, which
 * follows the allocation at once, if that comes within two intervals of
 * the thread's CPU time; else it is counted unwalkable. */
#ifndef HPROF_IN_AGENT_H
#define HPROF_IN_AGENT_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct hp_in_agent_sampler {
    /* Takes `n` samples of the current thread's stack (thread serial for
     * thread=y, or 0). */
    void (*take)(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t thread_serial);
    /* Counts `n` deferred samples that came too late as unwalkable. */
    void (*unwalkable)(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t thread_serial);
    uint64_t interval_ns;
};
/* Set by cpu=samples; NULL while it does not sample. */
void hp_in_agent_set_sampler(const struct hp_in_agent_sampler *s);

/* Sections nest; only the outermost leave takes the noted samples. */
void hp_in_agent_enter(void);
void hp_in_agent_leave(jvmtiEnv *jvmti, JNIEnv *jni);
/* Async-signal-safe: true, after noting one sample, if the calling thread is
 * inside a section. */
bool hp_in_agent_note(uint32_t thread_serial);
/* Async-signal-safe, for a sample AsyncGetCallTrace could not walk outside
 * Java code: true, after deferring it, if the thread left an agent section
 * since its last such sample. */
bool hp_in_agent_defer(uint32_t thread_serial);
/* At the thread's end: deferred samples no section took count unwalkable. */
void hp_in_agent_thread_end(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
