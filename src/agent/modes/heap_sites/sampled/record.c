#include "agent/modes/heap_sites/sampled/record.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/weight.h"
#include "agent/tables/class.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <stdatomic.h>

static atomic_bool recording, site_lost;

void hp_sites_record_enable(bool on)
{
    atomic_store(&recording, on);
}

static void record_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                 jclass klass, jlong size)
{
    (void)thread; /* always the current thread: capture with NULL is cheaper */
    if (!atomic_load_explicit(&recording, memory_order_relaxed)) return;
    const struct hp_thread *t = hp_thread_get(jvmti, NULL);
    if (t != NULL && t->agent) return;
    uint32_t thread_serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
    uint32_t trace = hp_trace_capture(jvmti, jni, NULL, 0, thread_serial);
    uint32_t site = hp_site_intern(hp_class_serial(jvmti, klass), trace);
    struct hp_site *s = hp_site_get(site);
    if (s == NULL) {
        /* Exact counts are no longer exact: say so once. */
        if (!atomic_exchange(&site_lost, true))
            hp_error("heap=sites: allocation site table full or out of memory; allocations at "
                     "new sites are not counted from now on");
        return;
    }
    uint64_t w = hp_sites_weight((uint64_t)size, hp.opt.alloc_interval);
    atomic_fetch_add_explicit(&s->alloc_objs, w, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->alloc_bytes, hp_sites_weight_bytes((uint64_t)size, w),
                              memory_order_relaxed);
    /* A fresh object has no tag yet, so this ID cannot replace another. */
    (*jvmti)->SetTag(jvmti, object, (jlong)hp_objid_new(site));
}

void JNICALL hp_sites_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                       jclass klass, jlong size)
{
    hp_in_agent_enter();
    record_sampled_alloc(jvmti, jni, thread, object, klass, size);
    hp_in_agent_leave(jvmti, jni);
}
