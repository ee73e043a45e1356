/* Object IDs as written in both formats are JVM TI tags.
 *
 * A tag holds a 40-bit sequence number and, above it, 24 bits a mode may use
 * for per-object data (heap=sites stores the allocation site there), so the
 * ID of an object never changes and two objects never share one. IDs are
 * not addresses, and 0 means null. */
#ifndef HPROF_OBJID_H
#define HPROF_OBJID_H

#include <jvmti.h>
#include <stdint.h>

typedef uint64_t hp_objid_t;

#define HP_OBJID_SITE_SHIFT 40
#define HP_OBJID_MAX_SITE 0xffffffu

/* A fresh ID carrying `site` (0: none). */
hp_objid_t hp_objid_new(uint32_t site);
static inline uint32_t hp_objid_site(hp_objid_t id)
{
    return (uint32_t)(id >> HP_OBJID_SITE_SHIFT);
}
/* The highest sequence number given out so far. */
uint64_t hp_objid_issued(void);
/* The object's ID, tagging it first if it has none; 0 for NULL or failure. */
hp_objid_t hp_objid_of(jvmtiEnv *jvmti, jobject obj);

#endif
