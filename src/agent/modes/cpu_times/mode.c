#include "agent/modes/cpu_times/cpu_times.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/cpu_times/collect.h"
#include "agent/modes/cpu_times/report.h"
#include "agent/modes/cpu_times/ticker.h"

#include <stdlib.h>

#include <time.h>

static bool collect_ready;

int hp_ct_depth(void)
{
    return hp.opt.cpu_old ? 2 : hp.opt.depth;
}

/* HprofTracker's natives (see instrument.h). */
JNIEXPORT jint JNICALL Java_java_lang_HprofTracker_depth(JNIEnv *jni, jclass k)
{
    (void)jni, (void)k;
    return hp_ct_depth();
}

JNIEXPORT void JNICALL Java_java_lang_HprofTracker_backoff(JNIEnv *jni, jclass k, jint round)
{
    (void)k;
    hp_in_agent_enter();
    hp_instr_backoff(round);
    hp_in_agent_leave(hp.jvmti, jni);
}

/* The calling thread's CPU time in ns, -1 without a thread CPU clock. */
JNIEXPORT jlong JNICALL Java_java_lang_HprofTracker_cpuTime(JNIEnv *jni, jclass k)
{
    (void)jni, (void)k;
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool on_load(struct hp_setup *s)
{
    const struct hp_instr_client c = {
        .entry_name = "enter",
        .entry_desc = "(II)V",
        .exit_name = "exit",
        .exit_desc = "(II)V",
        .leaf_name = "leaf",
        .leaf_desc = "(II)V",
        .frames = true,
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

const struct hp_mode hp_mode_cpu_times = {
    .option = "cpu=times",
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_end = thread_end,
    .dump = dump,
    .vm_death = vm_death,
};
