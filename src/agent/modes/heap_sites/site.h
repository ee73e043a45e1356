/* Allocation sites for heap=sites (and, read-only, heap=dump).
 *
 * A site is a (class serial, trace serial) pair, numbered 1..n in the order
 * first seen. The number fits the 24-bit site field of an object's tag
 * (tables/objid.h). An object tagged by heap=sites carries its site there,
 * or (exact route) a key that names its site once resolved (hp_site_tags):
 * hp_site_of_tag(tag) recovers it and the functions below map it to the
 * serials a heap dump cites. Site 0 means "no site" (object not tracked, or
 * heap=sites not active); it maps to the empty trace and class serial 0.
 * All functions are thread-safe and may be called from any thread, but not
 * from inside JVM TI heap-iteration callbacks for hp_site_intern (it takes a
 * lock an allocating thread may hold); the lookups are lock-free. */
#ifndef HPROF_HEAP_SITES_SITE_H
#define HPROF_HEAP_SITES_SITE_H

#include "agent/tables/objid.h"

#include <stdatomic.h>
#include <stdint.h>

#define HP_SITE_NONE 0u
#define HP_SITE_MAX HP_OBJID_MAX_SITE

struct hp_site {
    uint32_t class_serial;
    uint32_t trace_serial;
    /* Allocated here: objects in HP_SITE_ONE units (weight.h), bytes. In
     * sampled mode both are estimates. */
    _Atomic uint64_t alloc_objs, alloc_bytes;
};

/* Creates the table; called by heap=sites at load. Without it every lookup
 * answers "no site". */
void hp_site_table_init(void);
/* A new recording: the next hp_site_table_init starts an empty table. The
 * old one is kept, as lock-free lookups may still be reading it. */
void hp_site_table_forget(void);
/* The site of (class, trace), adding it if new; HP_SITE_NONE if the table
 * is missing, out of memory or already holds HP_SITE_MAX sites. */
uint32_t hp_site_intern(uint32_t class_serial, uint32_t trace_serial);
/* NULL for HP_SITE_NONE or an unknown site. */
struct hp_site *hp_site_get(uint32_t site);
uint32_t hp_site_count(void);

/* How tags name sites when their site bits hold something else (the exact
 * route's keys); without it the bits are the site. */
struct hp_site_tags {
    /* The site of a tag's site bits, HP_SITE_NONE if unknown. Lock-free:
     * called from heap callbacks. */
    uint32_t (*site_of)(uint32_t bits);
    /* Gives every tag given so far its site; outside heap callbacks. */
    void (*resolve)(jvmtiEnv *jvmti, JNIEnv *jni);
};
void hp_site_tags_use(const struct hp_site_tags *tags);
/* Before a heap walk that reads the sites of tags (heap=dump). */
void hp_site_tags_resolve(jvmtiEnv *jvmti, JNIEnv *jni);
uint32_t hp_site_of_tag(hp_objid_t tag);
/* The allocation trace of the site; the empty trace (300000) if none. */
uint32_t hp_site_trace_serial(uint32_t site);
/* The class allocated at the site; 0 if none. */
uint32_t hp_site_class_serial(uint32_t site);

#endif
