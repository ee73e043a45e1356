/* Thread table: every Java thread the agent has seen, with its serial
 * (200001, 200002, ... in the order first seen; 200000 is the "unknown
 * thread"). The record hangs off JVM TI thread-local storage. */
#ifndef HPROF_THREAD_H
#define HPROF_THREAD_H

#include "agent/tables/objid.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#define HP_THREAD_SERIAL_UNKNOWN 200000u

struct hp_thread {
    uint32_t serial;
    hp_objid_t obj;
    pid_t tid;  /* OS thread id; 0 when first seen from another thread */
    bool agent; /* an agent thread: never profiled */
    atomic_bool ended;
};

/* Records a live thread, writing THREAD START the first time it is seen.
 * `current` says the caller runs on that thread. Returns NULL if the thread
 * is not alive or on failure. */
struct hp_thread *hp_thread_seen(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, bool current,
                                 bool agent);
/* A thread serial that no Java thread has, announced with THREAD START
 * under `name` and `group` (cpu=samples: "<virtual threads>"); 0 on failure. */
uint32_t hp_thread_pseudo(const char *name, const char *group);
/* Writes THREAD END once for a thread that was seen. */
void hp_thread_ended(jvmtiEnv *jvmti, jthread thread);
/* The record of `thread` (NULL: the calling thread), or NULL if unseen. */
struct hp_thread *hp_thread_get(jvmtiEnv *jvmti, jthread thread);
/* A new recording: no thread seen yet, serials from the first again. The
 * records are kept (a callback still running may hold one). */
void hp_thread_table_reset(void);
/* Calls fn for every thread record seen so far, ended or not. */
void hp_thread_foreach(void (*fn)(struct hp_thread *t, void *ctx), void *ctx);

#endif
