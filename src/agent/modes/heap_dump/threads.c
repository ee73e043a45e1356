#include "agent/modes/heap_dump/threads.h"

#include "agent/core/error.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

void hd_threads_load(struct hd_map *threads, jvmtiEnv *jvmti, JNIEnv *jni)
{
    hd_map_init(threads);
    jint n = 0;
    jthread *all = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetAllThreads(jvmti, &n, &all), "GetAllThreads")) return;
    for (jint i = 0; i < n; i++) {
        /* A thread the agent has not met yet (it started during the dump)
         * is announced now, as the original did for untagged threads. */
        struct hp_thread *t = hp_thread_get(jvmti, all[i]);
        if (t == NULL) t = hp_thread_seen(jvmti, jni, all[i], false, false);
        if (t != NULL && t->obj != 0) {
            uint32_t trace = hp_trace_capture(jvmti, jni, all[i], 0, t->serial);
            hp_trace_write(trace);
            hd_map_put(threads, t->obj, (uint64_t)t->serial | (uint64_t)trace << 32);
        }
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

void hd_thread_lookup(const struct hd_map *threads, uint64_t obj, uint32_t *serial, uint32_t *trace)
{
    uint64_t v;
    if (obj != 0 && hd_map_get(threads, obj, &v)) {
        *serial = (uint32_t)v;
        *trace = (uint32_t)(v >> 32);
    } else {
        *serial = HP_THREAD_SERIAL_UNKNOWN;
        *trace = HP_TRACE_EMPTY;
    }
}
