/* heap=sites: allocation sites with allocated and live counts.
 *
 * Every allocation (alloc_interval=0) or a byte-interval sample of them is
 * delivered by JVM TI SampledObjectAlloc on the allocating thread; see
 * record.c. Liveness is counted at each dump (live.c). */
#include "../../core/mode.h"
#include "../../core/agent.h"
#include "../../core/error.h"
#include "../../output/encoder.h"
#include "live.h"
#include "record.h"
#include "report.h"
#include "site.h"

static const struct hp_sites_encoder *enc;

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
    enc = hp_output_binary() ? &hp_binary_sites_encoder : &hp_ascii_sites_encoder;
    hp_sites_record_enable(true);
    /* HotSpot arms sampling only in TLABs handed out once the event is live;
     * the TLABs threads already hold would let their next allocations (some
     * hundred KB) pass unseen. A collection retires every TLAB. Sampled
     * mode skips it: it only delays the first sample of those threads. */
    if (hp.opt.alloc_interval == 0)
        hp_jvmti_ok(jvmti, (*jvmti)->ForceGarbageCollection(jvmti), "ForceGarbageCollection");
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    struct hp_sites_live live = {0};
    hp_sites_live_count(jvmti, &live);
    hp_sites_report_write(enc, &live);
    hp_sites_live_free(&live);
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    hp_sites_record_enable(false);
    hp_jvmti_ok(jvmti,
                (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE,
                                                   JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                "SetEventNotificationMode");
}

const struct hp_mode hp_mode_heap_sites = {
    .option = "heap=sites",
    .dump_message = " allocation sites ...",
    .on_load = on_load,
    .vm_init = vm_init,
    .dump = dump,
    .vm_death = vm_death,
};
