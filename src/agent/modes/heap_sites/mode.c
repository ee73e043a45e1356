/* heap=sites: allocation sites with allocated and live counts.
 *
 * Two routes. Exact (alloc_interval=0, unless heap=dump or cpu=times is on
 * too): rewritten allocation sites count in Java, see exact.c. Otherwise
 * every allocation or a byte-interval sample of them is delivered by JVM TI
 * SampledObjectAlloc on the allocating thread (record.c) and liveness is
 * counted at each dump (live.c). */
#include "agent/core/mode.h"
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/modes/heap_sites/exact.h"
#include "agent/modes/heap_sites/live.h"
#include "agent/modes/heap_sites/record.h"
#include "agent/modes/heap_sites/report.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/output/encoder.h"

static const struct hp_sites_encoder *enc;

static bool exact;

static bool on_load(struct hp_setup *s)
{
    exact = hp_sites_exact_selected();
    if (exact) return hp_sites_exact_on_load(s);
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
    enc = hp_output_binary() ? &hp_binary_sites_encoder : &hp_ascii_sites_encoder;
    if (exact) {
        hp_sites_exact_vm_init(jvmti, jni);
        return;
    }
    hp_sites_record_enable(true);
    /* HotSpot arms sampling only in TLABs handed out once the event is live;
     * the TLABs threads already hold would let their next allocations (some
     * hundred KB) pass unseen. A collection retires every TLAB. Sampled
     * mode skips it: it only delays the first sample of those threads. */
    if (hp.opt.alloc_interval == 0) hp_gc_for_dump(jvmti);
}

/* Live counts per site, on the route in use (after a forced collection). */
static void count_live(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live)
{
    if (exact)
        hp_sites_exact_collect(jvmti, jni, live);
    else
        hp_sites_live_count(jvmti, live);
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    struct hp_sites_live live = {0};
    count_live(jvmti, jni, &live);
    hp_sites_report_write(enc, &live, &(struct hp_sites_query){hp.opt.cutoff, 0});
    hp_sites_live_free(&live);
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

static void request(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r)
{
    struct hp_sites_live live = {0};
    switch (r->kind) {
    case HP_REQ_SITES:
        count_live(jvmti, jni, &live);
        hp_sites_report_write(enc, &live, &(struct hp_sites_query){r->cutoff, r->flags});
        hp_sites_live_free(&live);
        break;
    case HP_REQ_HEAP_SUMMARY:
        if (enc->heap_summary == NULL) break; /* ascii: no record, so no GC either */
        count_live(jvmti, jni, &live);
        hp_sites_summary_write(enc, &live);
        hp_sites_live_free(&live);
        break;
    case HP_REQ_TRACKING:
    case HP_REQ_CLEAR_SITES:
        /* Both act on the SampledObjectAlloc route's recording and tags. */
        if (exact)
            hp_error("net= CONTROL %s is not available on the exact route of heap=sites",
                     r->kind == HP_REQ_CLEAR_SITES ? "clear sites" : "alloc tracking");
        else if (r->kind == HP_REQ_TRACKING)
            hp_sites_record_enable(r->on);
        else
            clear_sites();
        break;
    default:
        break;
    }
}

static void thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t,
                         bool current)
{
    (void)jvmti, (void)current;
    if (exact) hp_sites_exact_thread_start(jni, thread, t);
}

static void thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t)
{
    (void)thread;
    if (exact) hp_sites_exact_thread_end(jvmti, jni, t);
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    if (exact) {
        hp_sites_exact_vm_death(jvmti);
        return;
    }
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
    if (exact) return; /* never stopped: it rewrote classes (core/attach.c) */
    hp_site_table_forget();
    hp_jvmti_ok(jvmti, (*jvmti)->SetHeapSamplingInterval(jvmti, JVM_DEFAULT_SAMPLING_INTERVAL),
                "SetHeapSamplingInterval");
}

const struct hp_mode hp_mode_heap_sites = {
    .option = "heap=sites",
    .dump_message = " allocation sites ...",
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .dump = dump,
    .vm_death = vm_death,
    .stop = stop,
    .request = request,
};
