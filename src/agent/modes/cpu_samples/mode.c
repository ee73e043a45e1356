/* cpu=samples: CPU-time driven, asynchronous stack sampling (README.md
 * here: method, limits, deviations from JDK 8). Timers (timers.c) signal only threads that are
 * on a CPU; the handler (sampler.c) queues AsyncGetCallTrace stacks
 * (ring.c); the drain (drain.c) turns them into traces and counts
 * (counts.c); the dump writes the CPU SAMPLES table. */
#include "agent/core/mode.h"
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/io/writer.h"
#include "agent/modes/cpu_samples/counts.h"
#include "agent/modes/cpu_samples/drain.h"
#include "agent/modes/cpu_samples/method_ids.h"
#include "agent/modes/cpu_samples/pseudo.h"
#include "agent/modes/cpu_samples/ring.h"
#include "agent/modes/cpu_samples/sampler.h"
#include "agent/modes/cpu_samples/timers.h"
#include "agent/modes/cpu_samples/vmthreads.h"
#include "agent/output/cpu_report_encoder.h"
#include "agent/output/encoder.h"
#include "agent/tables/trace.h"

#include <stdlib.h>
#include <string.h>

/* depth=0 samples nothing, as in the JDK 8 agent (its CPU SAMPLES had total 0). */
static bool sampling_wanted(void)
{
    return hp.opt.depth > 0;
}

/* Frames taken per sample: depth= (options keep it <= HP_MAX_DEPTH), and
 * room for the agent's own frames, which traces leave out. */
static int sample_depth(void)
{
    return hp.opt.depth + HP_TRACE_AGENT_SLACK;
}

/* AsyncGetCallTrace works only while some agent has ClassLoad enabled. */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jvmti;
    (void)jni;
    (void)thread;
    (void)klass;
}

static bool on_load(struct hp_setup *s)
{
    if (!sampling_wanted()) return true;
    s->events->ClassLoad = on_class_load;
    /* The handler must be in place before the first timer is armed, and
     * thread_start arms "main" before vm_init runs. */
    if (!hp_ring_init(sample_depth())) {
        hp_error("cpu=samples: out of memory for the sample queue");
        return false;
    }
    hp_timers_init(hp.opt.interval_ms);
    hp_vmthreads_init(hp.opt.interval_ms);
    hp_drain_init(hp.opt.depth, hp.opt.interval_ms, hp.opt.javaonly);
    return hp_sampler_install(sample_depth());
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (!sampling_wanted()) return;
    hp_jvmti_ok(
        jvmti,
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL),
        "SetEventNotificationMode");
    hp_method_ids_of_loaded(jvmti, jni);
    /* Before the drain thread exists, so that it is not among them. */
    hp_timers_arm_unseen();
    hp_drain_now(jvmti, jni); /* the first poll: what every thread used so far */
    if (!hp_drain_thread_start(jvmti, jni)) {
        hp_timers_stop_all(); /* nothing would count the samples */
        return;
    }
    hp_sampler_enable(true);
}

/* A thread that ran before VM_INIT, seen from the VM_INIT thread: it is
 * armed by hp_timers_arm_unseen, which finds it by name. */
static void expect_thread(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t)
{
    jvmtiThreadInfo info;
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return;
    if (info.name) {
        hp_timers_expect(info.name, t->serial);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    }
    if (info.thread_group) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

/* JDK 21+: the platform threads that run virtual threads. */
static bool is_carrier(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    jclass k = (*jni)->GetObjectClass(jni, thread);
    char *sig = NULL;
    bool carrier = k && (*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE &&
                   strcmp(sig, "Ljdk/internal/misc/CarrierThread;") == 0;
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (k) (*jni)->DeleteLocalRef(jni, k);
    return carrier;
}

static void thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t,
                         bool current)
{
    if (!sampling_wanted()) return;
    if (!current) {
        if (!t->agent) expect_thread(jvmti, jni, thread, t);
    } else if (t->agent) {
        hp_timers_exclude_current();
    } else {
        hp_timers_arm_current(t->serial, is_carrier(jvmti, jni, thread));
    }
}

static void thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t)
{
    (void)thread;
    (void)t;
    if (!sampling_wanted()) return;
    hp_timers_remove_current();
    hp_in_agent_thread_end(jvmti, jni);
}

static void class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jni;
    (void)thread;
    if (sampling_wanted()) hp_method_ids_of_class(jvmti, klass);
}

/* The rows the original listed: most samples first, up to the first whose
 * share is below the cutoff. */
static size_t listed(const struct hp_cpu_row *rows, size_t n, uint64_t total, double cutoff)
{
    size_t k = 0;
    while (k < n && (double)rows[k].cost / (double)total >= cutoff)
        k++;
    return k;
}

/* CPU SAMPLES since the last dump, at a dump or on a net= request. */
static void report(jvmtiEnv *jvmti, JNIEnv *jni, double cutoff)
{
    if (sampling_wanted()) hp_drain_now(jvmti, jni);
    size_t n = 0;
    uint64_t total = 0;
    struct hp_cpu_row *rows = hp_cpu_counts_snapshot(&n, &total);
    struct hp_cpu_report report = {HP_CPU_REPORT_SAMPLES, total, rows,
                                   rows ? listed(rows, n, total, cutoff) : 0};
    const struct hp_cpu_report_encoder *enc =
        hp_output_binary() ? &hp_binary_cpu_report : &hp_ascii_cpu_report;
    hp_out_lock();
    for (size_t i = 0; i < report.n_rows; i++)
        hp_trace_write(rows[i].trace);
    enc->report(&report);
    hp_out_unlock();
    free(rows);
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    report(jvmti, jni, hp.opt.cutoff);
}

/* A request's report leaves the counts as they are (the snapshot it takes
 * is only subtracted by the reset after a dump, which takes its own). */
static void request(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r)
{
    switch (r->kind) {
    case HP_REQ_CPU_SAMPLES:
        report(jvmti, jni, r->cutoff);
        break;
    case HP_REQ_SAMPLING:
        if (!sampling_wanted()) break;
        hp_timers_set_running(r->thread_serial, r->on);
        if (r->thread_serial == 0) hp_vmthreads_set_running(r->on);
        break;
    case HP_REQ_CLEAR_CPU:
        if (sampling_wanted()) hp_drain_now(jvmti, jni);
        hp_cpu_counts_clear();
        break;
    default:
        break;
    }
}

static void reset(void)
{
    hp_cpu_counts_forget_reported();
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (!sampling_wanted()) return;
    /* No signal after this, no drain thread: the final dump sees all samples. */
    hp_timers_stop_all();
    hp_sampler_uninstall();
    hp_drain_thread_stop();
    hp_drain_now(jvmti, jni);
    hp_drain_report();
}

static void stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti;
    (void)jni;
    if (!sampling_wanted()) return;
    hp_drain_thread_join();
    hp_timers_reopen();
    hp_cpu_counts_clear();
    hp_pseudo_forget();
}

static bool selected(const struct hp_options *o)
{
    return o->cpu_samples;
}

const struct hp_mode hp_mode_cpu_samples = {
    .option = "cpu=samples",
    .selected = selected,
    .dump_message = " CPU usage by sampling running threads ...",
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .class_prepare = class_prepare,
    .dump = dump,
    .reset = reset,
    .vm_death = vm_death,
    .stop = stop,
    .request = request,
};
