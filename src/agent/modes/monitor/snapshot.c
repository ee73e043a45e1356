/* MONITOR DUMP: threads with state and stack, then the monitors they own. */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/modes/monitor/monitor.h"
#include "agent/modes/monitor/monitor_encoder.h"
#include "agent/tables/class.h"
#include "agent/tables/trace.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t serial_of(jvmtiEnv *jvmti, jthread thread)
{
    const struct hp_thread *t = thread ? hp_thread_get(jvmti, thread) : NULL;
    return t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
}

/* The original's status codes, with S|, intr| and native| prefixes. */
static void status_text(jint st, char *buf, size_t cap)
{
    const char *base;
    if (!(st & JVMTI_THREAD_STATE_ALIVE))
        base = st & JVMTI_THREAD_STATE_TERMINATED ? "ZO" : "NS";
    else if (st & JVMTI_THREAD_STATE_SLEEPING)
        base = "SL";
    else if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        base = "MW";
    else if (st & JVMTI_THREAD_STATE_WAITING)
        base = "CW";
    else if (st & JVMTI_THREAD_STATE_RUNNABLE)
        base = "R";
    else
        base = "UN";
    snprintf(buf, cap, "%s%s%s%s", st & JVMTI_THREAD_STATE_SUSPENDED ? "S|" : "",
             st & JVMTI_THREAD_STATE_INTERRUPTED ? "intr|" : "",
             st & JVMTI_THREAD_STATE_IN_NATIVE ? "native|" : "", base);
}

static uint32_t *serials(jvmtiEnv *jvmti, JNIEnv *jni, jthread *threads, jint n)
{
    uint32_t *out = calloc(n > 0 ? (size_t)n : 1, sizeof *out);
    for (jint i = 0; i < n; i++) {
        if (out) out[i] = serial_of(jvmti, threads[i]);
        if (threads[i]) (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
    return out;
}

/* JDK 22 and older list threads in wait() among the threads waiting to
 * enter (JDK-8247972); a thread waits for one or the other, never both. */
static int drop_notify_waiters(uint32_t *waiters, int n, const uint32_t *notify, int n_notify)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < n_notify && !dup; j++)
            dup = waiters[i] == notify[j];
        if (!dup) waiters[kept++] = waiters[i];
    }
    return kept;
}

static void write_monitor(jvmtiEnv *jvmti, JNIEnv *jni, jobject object)
{
    jvmtiMonitorUsage u;
    if ((*jvmti)->GetObjectMonitorUsage(jvmti, object, &u) != JVMTI_ERROR_NONE) return;
    jclass k = (*jni)->GetObjectClass(jni, object);
    const struct hp_class *c = hp_class_get(k ? hp_class_serial(jvmti, k) : 0);
    if (k) (*jni)->DeleteLocalRef(jni, k);
    struct hp_monitor_usage m = {c && c->sig ? c->sig : "<Unknown>",
                                 u.owner ? serial_of(jvmti, u.owner) : 0,
                                 u.entry_count,
                                 serials(jvmti, jni, u.waiters, u.waiter_count),
                                 serials(jvmti, jni, u.notify_waiters, u.notify_waiter_count),
                                 u.waiter_count,
                                 u.notify_waiter_count};
    if (u.owner) (*jni)->DeleteLocalRef(jni, u.owner);
    if (m.waiters && m.notify_waiters) {
        m.n_waiters = drop_notify_waiters((uint32_t *)m.waiters, m.n_waiters, m.notify_waiters,
                                          m.n_notify_waiters);
        hp_monitor_ascii.dump_monitor(&m);
    }
    free((void *)m.waiters);
    free((void *)m.notify_waiters);
}

static void write_owned_monitors(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    jint n = 0;
    jobject *owned = NULL;
    if ((*jvmti)->GetOwnedMonitorInfo(jvmti, thread, &n, &owned) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; i++) {
        write_monitor(jvmti, jni, owned[i]);
        (*jni)->DeleteLocalRef(jni, owned[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)owned);
}

void hp_monitor_snapshot(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &threads) != JVMTI_ERROR_NONE) return;
    uint32_t *traces = calloc(n > 0 ? (size_t)n : 1, sizeof *traces);
    jint *states = calloc(n > 0 ? (size_t)n : 1, sizeof *states);
    if (traces && states) {
        for (jint i = 0; i < n; i++) {
            if ((*jvmti)->GetThreadState(jvmti, threads[i], &states[i]) != JVMTI_ERROR_NONE)
                states[i] = 0;
            traces[i] = hp_trace_capture(jvmti, jni, threads[i], 0, serial_of(jvmti, threads[i]));
        }
        hp_out_lock();
        hp_trace_write_unwritten();
        hp_monitor_ascii.dump_begin();
        for (jint i = 0; i < n; i++) {
            const struct hp_thread *t = hp_thread_get(jvmti, threads[i]);
            if (t && t->agent) continue;
            char status[40];
            status_text(states[i], status, sizeof status);
            hp_monitor_ascii.dump_thread(serial_of(jvmti, threads[i]), traces[i], status);
        }
        for (jint i = 0; i < n; i++)
            write_owned_monitors(jvmti, jni, threads[i]);
        hp_monitor_ascii.dump_end();
        hp_out_unlock();
    }
    for (jint i = 0; i < n; i++)
        (*jni)->DeleteLocalRef(jni, threads[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
    free(traces);
    free(states);
}
