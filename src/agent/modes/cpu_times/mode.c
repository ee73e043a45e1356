/* cpu=times and cpu=old: exact call counts and per-method CPU time from
 * method entry/exit calls injected by the instrument component. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/cpu_times/collect.h"
#include "agent/modes/cpu_times/report.h"
#include "agent/modes/cpu_times/ticker.h"

#include <stdlib.h>

static bool collect_ready;

static bool on_load(struct hp_setup *s)
{
    const struct hp_instr_client c = {
        .entry_name = "enter",
        .entry_desc = "(II)V",
        .exit_name = "exit",
        .exit_desc = "(II)V",
        .leaf_name = "leaf",
        .leaf_desc = "(II)V",
        .switch_from_name = "leaving",
        .switch_from_desc = "(II)V",
        .switch_to_name = "arrived",
        .switch_to_desc = "(II)V",
        .frames = true,
        .tracker_thread_field = true,
    };
    return hp_instr_add(s, &c);
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jclass k = hp_instr_tracker();
    collect_ready = k && hp_ct_collect_init(jni, k) && hp_ct_ticker_start(jvmti, jni, k) &&
                    hp_instr_engage(jni);
    if (!collect_ready) hp_error("cpu=times: the tracker class is not usable; no CPU TIME data");
}

static void thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t)
{
    (void)thread;
    if (collect_ready && !t->agent) hp_ct_thread_end(jvmti, jni, t->serial);
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    hp_ct_ticker_stop();
}

static void stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    collect_ready = false;
    hp_ct_collect_forget();
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    /* The message depends on cpu=old, so it is not a constant dump_message. */
    hp_verbose(hp.opt.cpu_old ? " CPU usage in old prof format ..."
                              : " CPU usage by timing methods ...");
    size_t n = 0;
    struct hp_ct_row *rows = collect_ready ? hp_ct_collect(jvmti, jni, &n) : NULL;
    if (hp.opt.cpu_old)
        hp_ct_report_old(rows, n);
    else
        hp_ct_report_times(rows, n);
    free(rows);
}

static bool selected(const struct hp_options *o)
{
    return o->cpu_times;
}

const struct hp_mode hp_mode_cpu_times = {
    .option = "cpu=times",
    .selected = selected,
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_end = thread_end,
    .dump = dump,
    .vm_death = vm_death,
    .stop = stop,
};
