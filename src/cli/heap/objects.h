/*
 * Dense numbering of the objects of one heap dump: every INSTANCE, OBJECT
 * ARRAY, PRIMITIVE ARRAY and CLASS DUMP gets an index, its position in the
 * array of object IDs sorted ascending. Two arrays of 8 bytes per object (ID,
 * sub-record offset) and a small directory that narrows a lookup to a few
 * entries, so ID -> index is a short binary search with no hash table.
 */
#ifndef HPROF_CLI_HEAP_OBJECTS_H
#define HPROF_CLI_HEAP_OBJECTS_H

#include "index.h"

#define HP_NO_OBJECT UINT32_MAX

typedef struct {
    uint64_t *ids;     /* sorted, unique */
    uint64_t *offsets; /* file offset of each object's sub-record */
    uint32_t n;
    uint32_t *dir; /* dir[b]: first index whose (id - ids[0]) >> shift >= b */
    uint32_t dir_len;
    unsigned shift;
} hp_objects;

/* Whether a heap sub-record dumps an object (instance, array or class). */
static inline int hp_is_object_sub(uint8_t tag)
{
    return tag == HP_INSTANCE_DUMP || tag == HP_OBJ_ARRAY_DUMP || tag == HP_PRIM_ARRAY_DUMP ||
           tag == HP_PRIM_ARRAY_NODATA || tag == HP_CLASS_DUMP;
}

/* Numbers the objects of dump d. A duplicate ID keeps its first sub-record. */
int hp_objects_build(hp_objects *o, const hp_index *ix, size_t d, hp_error *err);
/* Builds from (id, offset) pairs the caller collected; takes ownership of both arrays. */
int hp_objects_from_pairs(hp_objects *o, uint64_t *ids, uint64_t *offsets, size_t n, hp_error *err);
void hp_objects_free(hp_objects *o);
/* Index of the object with this ID, or HP_NO_OBJECT. */
uint32_t hp_objects_find(const hp_objects *o, uint64_t id);

#endif
