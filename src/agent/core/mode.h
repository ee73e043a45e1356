/* The interface every profiling mode implements (heap=dump, heap=sites,
 * cpu=samples, cpu=times, monitor=y). Each mode is one folder (a vertical
 * slice: engine, records and encoders, use of the rewriter) that exports
 * one struct hp_mode; the core calls it at each lifecycle step and asks it
 * only through this interface, never by name. A mode touches only its own
 * state and writes through its own encoder interface. Every hook may be
 * NULL. */
#ifndef HPROF_MODE_H
#define HPROF_MODE_H

#include "agent/core/options.h"
#include "agent/tables/thread.h"

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* What a mode may ask for in Agent_OnLoad. */
struct hp_setup {
    jvmtiCapabilities *wanted;   /* add the capabilities the mode needs */
    jvmtiCapabilities potential; /* what this JVM can give */
    jvmtiEventCallbacks *events; /* set callbacks of events the mode owns */
};

/* A request from the net= command channel (listener.c), for the modes that
 * hold the data it asks about; a mode ignores the kinds it has no data for.
 * Requests never reset per-dump data. */
enum hp_request_kind {
    HP_REQ_SITES,        /* ALLOC SITES: the sites report with cutoff and flags */
    HP_REQ_HEAP_SUMMARY, /* HEAP SUMMARY: allocation totals */
    HP_REQ_CPU_SAMPLES,  /* CPU SAMPLES: the samples report with cutoff */
    HP_REQ_TRACKING,     /* CONTROL 1/2: allocation tracking on/off */
    HP_REQ_SAMPLING,     /* CONTROL 3/4: CPU sampling on/off */
    HP_REQ_CLEAR_CPU,    /* CONTROL 5 */
    HP_REQ_CLEAR_SITES,  /* CONTROL 6 */
};

struct hp_request {
    enum hp_request_kind kind;
    double cutoff;          /* HP_REQ_SITES, HP_REQ_CPU_SAMPLES */
    uint16_t flags;         /* HP_REQ_SITES: the request's flags (HP_SITES_* of heap=sites) */
    bool on;                /* HP_REQ_TRACKING, HP_REQ_SAMPLING */
    uint32_t thread_serial; /* HP_REQ_SAMPLING: one thread, 0 for all */
};

struct hp_mode {
    const char *option;       /* "heap=dump", ...: the option that enables it, for people */
    const char *dump_message; /* verbose text at each dump, e.g. " allocation sites ..." */
    /* Whether the parsed options enable the mode. */
    bool (*selected)(const struct hp_options *o);
    /* Its dump is the heap dump: net= DUMP HEAP writes it alone. */
    bool writes_heap_dump;
    /* Agent_OnLoad, or Agent_OnAttach (hp.attached: the VM is live). Returns
     * false, after hp_error(), to refuse to start. */
    bool (*on_load)(struct hp_setup *s);
    /* VM_INIT, after the core has recorded the threads already running. */
    void (*vm_init)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* A thread seen for the first time. `current`: the call runs on it (from
     * ThreadStart); otherwise it already existed when the agent started. */
    void (*thread_start)(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t,
                         bool current);
    void (*thread_end)(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t);
    void (*class_prepare)(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);
    /* Writes the mode's section(s). Called without the output lock: hold
     * hp_out_lock() around text that must not interleave with other
     * records, but never take it inside JVM TI heap callbacks (they run on
     * the VM thread while the dumping thread waits for them). */
    void (*dump)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* After each dump (CPU data restarts). */
    void (*reset)(void);
    /* VM_DEATH, before the final dump: stop agent threads and sampling. */
    void (*vm_death)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* `stop` ended the recording in a live VM (after vm_death and the last
     * dump, with the mode's threads told to end): wait for them to end and
     * drop the recording's data, so that a later on_load starts afresh. */
    void (*stop)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* A net= request, on the listener thread, serialised with dumps. Writes
     * like `dump` (same locking rules). */
    void (*request)(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r);
};

/* The modes in dump order (monitor, heap dump, sites, CPU samples, CPU
 * times), NULL-terminated; only those enabled by the options. */
const struct hp_mode *const *hp_active_modes(void);
/* Selects the modes the options ask for. */
void hp_modes_select(const struct hp_options *o);

#endif
