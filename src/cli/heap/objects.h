/*
 * Dense numbering of the objects of one heap dump: every INSTANCE, OBJECT
 * ARRAY, PRIMITIVE ARRAY and CLASS DUMP gets an index, its position in the
 * object IDs sorted ascending. IDs are kept as 4-byte keys, key = (id - base)
 * >> align (JVM object addresses are 8-byte aligned, so a heap of up to
 * 32 GB has keys below 2^32); a key's upper 32 bits come from a short table of
 * segments, one per distinct upper half. A directory over the key range
 * narrows a lookup to a few entries: ID -> index is a short binary search with
 * no hash table. Sub-record offsets are a separate array, filled by the graph.
 */
#ifndef HPROF_CLI_HEAP_OBJECTS_H
#define HPROF_CLI_HEAP_OBJECTS_H

#include "cli/readers/index.h"

#define HP_NO_OBJECT UINT32_MAX

/* The indexes whose keys share the upper half `hi` start at `first`. */
typedef struct {
    uint32_t hi, first;
} hp_key_segment;

typedef struct {
    uint32_t *keys; /* lower 32 bits of each key; keys sorted and unique */
    hp_key_segment *segs;
    uint32_t nsegs;
    uint64_t base;
    unsigned align;
    uint64_t *offsets; /* file offset of each object's sub-record (graph.c fills it) */
    uint32_t n;
    uint32_t *dir; /* dir[b]: first index whose key >> shift >= b */
    uint32_t dir_len;
    unsigned shift;
} hp_objects;

/* Whether a heap sub-record dumps an object (instance, array or class). */
static inline int hp_is_object_sub(uint8_t tag)
{
    return tag == HP_INSTANCE_DUMP || tag == HP_OBJ_ARRAY_DUMP || tag == HP_PRIM_ARRAY_DUMP ||
           tag == HP_PRIM_ARRAY_NODATA || tag == HP_CLASS_DUMP;
}

/* Numbers the IDs the caller collected (any order, duplicates allowed); takes
 * ownership of ids, which it reuses for the keys. */
int hp_objects_from_ids(hp_objects *o, uint64_t *ids, size_t n, hp_error *err);
void hp_objects_free(hp_objects *o);
/* Index of the object with this ID, or HP_NO_OBJECT. */
uint32_t hp_objects_find(const hp_objects *o, uint64_t id);
/* The same, trying index `guess` first (a dump lists objects mostly in ID order). */
uint32_t hp_objects_find_near(const hp_objects *o, uint64_t id, uint32_t guess);
/* The ID of object i. */
uint64_t hp_objects_id(const hp_objects *o, uint32_t i);

#endif
