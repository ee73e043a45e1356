/* The sampled engine of heap=sites: every allocation, or a byte-interval
 * sample of them, is delivered by JVM TI SampledObjectAlloc on the
 * allocating thread (record.c) and liveness is counted at each dump from
 * the tags it left (live.c). */
#include "agent/modes/heap_sites/engine.h"
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/modes/heap_sites/sampled/live.h"
#include "agent/modes/heap_sites/sampled/record.h"
#include "agent/modes/heap_sites/site.h"

static bool on_load(struct hp_setup *s)
{
    if (!s->potential.can_generate_sampled_object_alloc_events) {
        hp_error("heap=sites needs JVM TI SampledObjectAlloc (JDK 11 or later)");
        return false;
    }
    /* The capability is added here rather than with the core's set, so the
     * interval can be set and the event enabled before the first TLAB is
     * handed out: HotSpot only puts its sampling points into TLABs created
     * after that, and with interval 0 a thread's existing TLAB would hide
     * its first allocations. Events still start in the live phase. */
    jvmtiCapabilities caps = {0};
    caps.can_generate_sampled_object_alloc_events = 1;
    s->wanted->can_generate_sampled_object_alloc_events = 1;
    s->events->SampledObjectAlloc = hp_sites_on_sampled_alloc;
    jvmtiEnv *jvmti = hp.jvmti;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->AddCapabilities(jvmti, &caps), "AddCapabilities") ||
        !hp_jvmti_ok(jvmti, (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)hp.opt.alloc_interval),
                     "SetHeapSamplingInterval") ||
        !hp_jvmti_ok(jvmti,
                     (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                                        JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                     "SetEventNotificationMode"))
        return false;
    hp_site_table_init();
    return true;
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    hp_sites_record_enable(true);
    /* HotSpot arms sampling only in TLABs handed out once the event is live;
     * the TLABs threads already hold would let their next allocations (some
     * hundred KB) pass unseen. A collection retires every TLAB. Sampled
     * mode skips it: it only delays the first sample of those threads. */
    if (hp.opt.alloc_interval == 0) hp_gc_for_dump(jvmti);
}

static bool count_live(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live)
{
    (void)jni;
    return hp_sites_live_count(jvmti, live);
}

/* CONTROL "clear sites": counting starts again from zero at every site. */
static void clear_sites(void)
{
    hp_sites_live_forget();
    for (uint32_t i = 1, n = hp_site_count(); i <= n; i++) {
        struct hp_site *s = hp_site_get(i);
        if (s == NULL) continue;
        atomic_store(&s->alloc_objs, 0);
        atomic_store(&s->alloc_bytes, 0);
    }
}

static void control(const struct hp_request *r)
{
    if (r->kind == HP_REQ_TRACKING)
        hp_sites_record_enable(r->on);
    else
        clear_sites();
}

static void vm_death(jvmtiEnv *jvmti)
{
    hp_sites_record_enable(false);
    hp_jvmti_ok(jvmti,
                (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE,
                                                   JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                "SetEventNotificationMode");
}

/* HotSpot's default sampling interval: the JVM's own, whoever set it. */
#define JVM_DEFAULT_SAMPLING_INTERVAL (512 * 1024)

static void stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    hp_site_table_forget();
    hp_jvmti_ok(jvmti, (*jvmti)->SetHeapSamplingInterval(jvmti, JVM_DEFAULT_SAMPLING_INTERVAL),
                "SetHeapSamplingInterval");
}

const struct hp_sites_engine hp_sites_sampled_engine = {
    .on_load = on_load,
    .vm_init = vm_init,
    .count_live = count_live,
    .vm_death = vm_death,
    .stop = stop,
    .control = control,
};
