#include "agent/tables/objid.h"

#include <stdatomic.h>

static _Atomic uint64_t next_seq = 1;

hp_objid_t hp_objid_new(uint32_t site)
{
    uint64_t seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
    return ((uint64_t)(site & HP_OBJID_MAX_SITE) << HP_OBJID_SITE_SHIFT) |
           (seq & ((1ull << HP_OBJID_SITE_SHIFT) - 1));
}

uint64_t hp_objid_issued(void)
{
    return atomic_load_explicit(&next_seq, memory_order_relaxed) - 1;
}

hp_objid_t hp_objid_of(jvmtiEnv *jvmti, jobject obj)
{
    jlong tag = 0;
    if (obj == NULL || (*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) return 0;
    if (tag != 0) return (hp_objid_t)tag;
    hp_objid_t id = hp_objid_new(0);
    /* Two threads racing here would tag twice; callers that can race
     * (classes, threads) hold their table's lock. */
    if ((*jvmti)->SetTag(jvmti, obj, (jlong)id) != JVMTI_ERROR_NONE) return 0;
    return id;
}
