#include "agent/modes/monitor/monitor.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/io/writer.h"
#include "agent/modes/monitor/monitor_encoder.h"
#include "agent/tables/class.h"
#include "agent/tables/table.h"
#include "agent/tables/trace.h"

#include <stdlib.h>

struct monitor_key {
    uint32_t trace, class_serial;
};

struct monitor_info {
    _Atomic uint64_t time_ns;
    _Atomic uint64_t hits;
};

static struct hp_table *monitors;
static const struct hp_monitor_encoder *enc = &hp_monitor_ascii;

/* Events arrive on the thread that waits, so plain thread-locals hold the
 * pending contention or wait. */
static HP_TLS uint32_t pending;
static HP_TLS uint64_t enter_ns, wait_ns;

static const jvmtiEvent events[] = {
    JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
    JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
    JVMTI_EVENT_MONITOR_WAIT,
    JVMTI_EVENT_MONITOR_WAITED,
};

static uint32_t object_class(jvmtiEnv *jvmti, JNIEnv *jni, jobject object)
{
    jclass k = object ? (*jni)->GetObjectClass(jni, object) : NULL;
    uint32_t serial = k ? hp_class_serial(jvmti, k) : 0;
    if (k) (*jni)->DeleteLocalRef(jni, k);
    return serial;
}

static const char *class_sig(uint32_t serial)
{
    const struct hp_class *c = hp_class_get(serial);
    return c && c->sig ? c->sig : "<Unknown>";
}

/* The thread's serial, or 0 for threads that must not be profiled. */
static uint32_t profiled_thread(jvmtiEnv *jvmti, jthread thread)
{
    const struct hp_thread *t = hp_thread_get(jvmti, thread);
    if (t == NULL) return HP_THREAD_SERIAL_UNKNOWN;
    return t->agent ? 0 : t->serial;
}

static void JNICALL contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    uint32_t serial = profiled_thread(jvmti, thread);
    if (!atomic_load(&hp.live) || serial == 0) return;
    struct monitor_key key = {hp_trace_capture(jvmti, jni, thread, 0, serial),
                              object_class(jvmti, jni, object)};
    pending = hp_table_intern(monitors, &key, sizeof key, NULL, NULL, NULL);
    enter_ns = hp_mono_ns();
}

static void JNICALL contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jvmti;
    (void)jni;
    (void)thread;
    (void)object;
    struct monitor_info *m = pending ? hp_table_info(monitors, pending) : NULL;
    pending = 0;
    if (m == NULL) return;
    atomic_fetch_add(&m->time_ns, hp_mono_ns() - enter_ns);
    atomic_fetch_add(&m->hits, 1);
}

static void JNICALL wait_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                               jlong timeout)
{
    uint32_t serial = profiled_thread(jvmti, thread);
    if (!atomic_load(&hp.live) || serial == 0) return;
    wait_ns = hp_mono_ns();
    enc->wait(class_sig(object_class(jvmti, jni, object)), timeout, serial);
}

static void JNICALL wait_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                             jboolean timed_out)
{
    (void)timed_out;
    uint32_t serial = profiled_thread(jvmti, thread);
    if (!atomic_load(&hp.live) || serial == 0 || wait_ns == 0) return;
    int64_t waited = (int64_t)((hp_mono_ns() - wait_ns) / 1000000u);
    wait_ns = 0;
    enc->waited(class_sig(object_class(jvmti, jni, object)), waited, serial);
}

static bool on_load(struct hp_setup *s)
{
    /* HotSpot grants can_get_owned_monitor_info only at start-up: attached,
     * MONITOR DUMP then lists the threads without the monitors they own. */
    bool owned = s->potential.can_get_owned_monitor_info;
    if (!s->potential.can_generate_monitor_events || !s->potential.can_get_monitor_info ||
        (!owned && !hp.attached)) {
        hp_error("monitor=y needs JVM TI monitor capabilities this JVM does not offer");
        return false;
    }
    if (!owned)
        hp_note("monitor=y: this JVM lists owned monitors only to an agent loaded at start-up");
    s->wanted->can_generate_monitor_events = 1;
    s->wanted->can_get_owned_monitor_info = owned;
    s->wanted->can_get_monitor_info = 1;
    s->events->MonitorContendedEnter = contended_enter;
    s->events->MonitorContendedEntered = contended_entered;
    s->events->MonitorWait = wait_start;
    s->events->MonitorWaited = wait_end;
    monitors = hp_table_new(sizeof(struct monitor_info));
    return monitors != NULL;
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti;
    (void)jni;
    hp_set_events(JVMTI_ENABLE, events, sizeof events / sizeof events[0]);
}

static int by_time(const void *a, const void *b)
{
    const struct hp_monitor_row *x = a, *y = b;
    if (x->time_ns != y->time_ns) return x->time_ns < y->time_ns ? 1 : -1;
    if (x->hits != y->hits) return x->hits < y->hits ? 1 : -1;
    return (x->trace > y->trace) - (x->trace < y->trace);
}

static void time_table(void)
{
    uint32_t n = hp_table_count(monitors);
    struct hp_monitor_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (rows == NULL) return;
    uint64_t total = 0;
    uint32_t kept = 0;
    for (uint32_t idx = 1; idx <= n; idx++) {
        const struct monitor_key *k = hp_table_key(monitors, idx, NULL);
        struct monitor_info *m = hp_table_info(monitors, idx);
        uint64_t hits = atomic_load(&m->hits);
        if (hits == 0) continue;
        const struct hp_class *c = hp_class_get(k->class_serial);
        rows[kept] = (struct hp_monitor_row){k->trace, c && c->name ? c->name : "<Unknown>",
                                             atomic_load(&m->time_ns), hits};
        total += rows[kept++].time_ns;
    }
    qsort(rows, kept, sizeof *rows, by_time);
    hp_out_lock();
    for (uint32_t i = 0; i < kept; i++)
        hp_trace_write(rows[i].trace);
    enc->time_table(rows, kept, total, hp.opt.cutoff);
    hp_out_unlock();
    free(rows);
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    hp_monitor_snapshot(jvmti, jni);
    time_table();
}

static void reset(void)
{
    uint32_t n = hp_table_count(monitors);
    for (uint32_t idx = 1; idx <= n; idx++) {
        struct monitor_info *m = hp_table_info(monitors, idx);
        atomic_store(&m->time_ns, 0);
        atomic_store(&m->hits, 0);
    }
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti;
    (void)jni;
    hp_set_events(JVMTI_DISABLE, events, sizeof events / sizeof events[0]);
}

static bool selected(const struct hp_options *o)
{
    return o->monitor;
}

const struct hp_mode hp_mode_monitor = {
    .option = "monitor=y",
    .selected = selected,
    .dump_message = " contended monitor usage ...",
    .on_load = on_load,
    .vm_init = vm_init,
    .dump = dump,
    .reset = reset,
    .vm_death = vm_death,
};
