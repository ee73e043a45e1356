/* heap=sites counts allocations on one of two routes, each an engine behind
 * this interface, chosen once in on_load (mode.c):
 *  - exact (exact/): rewritten allocation sites count every allocation in
 *    Java (java.lang.HprofSites); taken when alloc_interval=0, cpu=times
 *    is off and depth= is within the route's capacity
 *    (HP_SITES_EXACT_CAPACITY); with heap=dump (heap=all) it tags every
 *    object, so that the dump cites each one's trace;
 *  - sampled (sampled/): JVM TI SampledObjectAlloc delivers every
 *    allocation, or a byte-interval sample of them, on the allocating
 *    thread; every other case.
 * Both fill the same site table (site.h) and live counts, so the report and
 * its encoders (report.c, ascii.c, binary.c) do not know the route. */
#ifndef HPROF_HEAP_SITES_ENGINE_H
#define HPROF_HEAP_SITES_ENGINE_H

#include "agent/core/mode.h"

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* Live counts per site at one dump. */
struct hp_sites_live {
    uint32_t n_sites; /* sites 1..n_sites are counted */
    uint64_t since;   /* object IDs with a lower sequence number do not count */
    uint64_t *objs;   /* [site]: HP_SITE_ONE units (weight.h) */
    uint64_t *bytes;  /* [site] */
};

void hp_sites_live_free(struct hp_sites_live *live);

struct hp_sites_engine {
    /* Agent_OnLoad/OnAttach: capabilities, events, tables; false after
     * hp_error() to refuse to start. */
    bool (*on_load)(struct hp_setup *s);
    void (*vm_init)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* Threads seen by the core (NULL: nothing to do per thread). */
    void (*thread_start)(JNIEnv *jni, jthread thread, const struct hp_thread *t);
    void (*thread_end)(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_thread *t);
    /* Brings the sites' allocated counts up to date and counts the live
     * objects per site (after a forced collection). False (after a message)
     * when it could not; *live is then empty. */
    bool (*count_live)(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live);
    void (*vm_death)(jvmtiEnv *jvmti);
    /* `stop` in a live VM: drop the recording. */
    void (*stop)(jvmtiEnv *jvmti, JNIEnv *jni);
    /* net= CONTROL alloc tracking on/off (HP_REQ_TRACKING) and clear sites
     * (HP_REQ_CLEAR_SITES). */
    void (*control)(const struct hp_request *r);
};

/* Whether the options select the exact engine. */
bool hp_sites_exact_selected(void);
extern const struct hp_sites_engine hp_sites_exact_engine;
extern const struct hp_sites_engine hp_sites_sampled_engine;

#endif
