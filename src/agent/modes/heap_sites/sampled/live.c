#include "agent/modes/heap_sites/sampled/live.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/weight.h"

#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t forget_below;

static uint64_t seq(hp_objid_t id)
{
    return id & ((1ull << HP_OBJID_SITE_SHIFT) - 1);
}

void hp_sites_live_forget(void)
{
    atomic_store(&forget_below, seq(hp_objid_new(HP_SITE_NONE)));
}

/* Runs on the VM thread with the world stopped: no locks, no output. */
static jint JNICALL count_object(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                                 void *user_data)
{
    (void)class_tag;
    (void)length;
    struct hp_sites_live *live = user_data;
    uint32_t site = hp_site_of_tag((hp_objid_t)*tag_ptr);
    if (site == HP_SITE_NONE || site > live->n_sites || seq((hp_objid_t)*tag_ptr) < live->since)
        return 0;
    uint64_t w = hp_sites_weight((uint64_t)size, hp.opt.alloc_interval);
    live->objs[site] += w;
    live->bytes[site] += hp_sites_weight_bytes((uint64_t)size, w);
    return 0;
}

bool hp_sites_live_count(jvmtiEnv *jvmti, struct hp_sites_live *live)
{
    /* Sites made after this snapshot belong to objects allocated after it;
     * they are counted at the next dump. */
    live->n_sites = hp_site_count();
    live->since = atomic_load(&forget_below);
    live->objs = calloc((size_t)live->n_sites + 1, sizeof *live->objs);
    live->bytes = calloc((size_t)live->n_sites + 1, sizeof *live->bytes);
    if (live->objs == NULL || live->bytes == NULL) {
        hp_error("out of memory counting live objects");
        hp_sites_live_free(live);
        return false;
    }
    hp_gc_for_dump(jvmti);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = count_object;
    if (!hp_jvmti_ok(
            jvmti, (*jvmti)->IterateThroughHeap(jvmti, JVMTI_HEAP_FILTER_UNTAGGED, NULL, &cb, live),
            "IterateThroughHeap")) {
        hp_sites_live_free(live);
        return false;
    }
    return true;
}
