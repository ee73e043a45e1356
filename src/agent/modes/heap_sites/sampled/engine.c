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

/* Only one JVM TI environment may hold allocation sampling. At interval 0
 * (exact) it is taken at load, so the interval is set before any thread
 * starts: HotSpot keeps a thread's distance to its next sample from the
 * interval it started with, and main would pass its first 512 KB unseen.
 * Sampled mode takes it at VM init, so that another agent loaded after
 * this one (a memory profiler beside it) can take it first instead of
 * making the JVM refuse to start: heap=sites then records nothing, says
 * so, and the program runs. */
static bool sampling_late(void)
{
    return hp.opt.alloc_interval > 0 && !hp.attached;
}

static bool start_sampling(jvmtiEnv *jvmti)
{
    jvmtiCapabilities caps = {0};
    caps.can_generate_sampled_object_alloc_events = 1;
    jvmtiError err = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (err == JVMTI_ERROR_NOT_AVAILABLE) {
        (sampling_late() ? hp_warn : hp_error)(
            "heap=sites records nothing: another JVM TI agent holds allocation sampling, "
            "which only one may hold");
        return false;
    }
    return hp_jvmti_ok(jvmti, err, "AddCapabilities") &&
           hp_jvmti_ok(jvmti, (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)hp.opt.alloc_interval),
                       "SetHeapSamplingInterval") &&
           hp_jvmti_ok(jvmti,
                       (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                                          JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                       "SetEventNotificationMode");
}

static bool sampling;

static bool on_load(struct hp_setup *s)
{
    /* Not among the potential capabilities while another agent holds it:
     * refused here only by a JVM before JDK 11. */
    jint version = 0;
    if (!s->potential.can_generate_sampled_object_alloc_events &&
        ((*hp.jvmti)->GetVersionNumber(hp.jvmti, &version) != JVMTI_ERROR_NONE ||
         (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR < 11)) {
        hp_error("heap=sites needs JVM TI SampledObjectAlloc (JDK 11 or later)");
        return false;
    }
    s->events->SampledObjectAlloc = hp_sites_on_sampled_alloc;
    hp_site_table_init();
    sampling = !sampling_late() && start_sampling(hp.jvmti);
    return sampling || sampling_late();
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    if (sampling_late()) sampling = start_sampling(jvmti);
    if (!sampling) return;
    hp_sites_record_enable(true);
    /* HotSpot arms sampling only in TLABs handed out once the event is on;
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
