/*
 * Memory that a different representation would save, per kind: duplicate
 * strings, empty and sparse collections, over-sized backing arrays, empty and
 * mostly-null arrays, boxed primitives. Only strongly reachable objects count.
 */
#ifndef HPROF_CLI_HEAP_WASTE_H
#define HPROF_CLI_HEAP_WASTE_H

#include "cli/heap/heap.h"

enum {
    HP_WASTE_DUP_STRINGS,
    HP_WASTE_EMPTY_COLLECTIONS,
    HP_WASTE_SPARSE_COLLECTIONS, /* backing arrays far larger than the contents */
    HP_WASTE_EMPTY_ARRAYS,       /* zero-length arrays beyond one per type */
    HP_WASTE_SPARSE_ARRAYS,      /* Object[] of 16+ elements, 3/4 or more null */
    HP_WASTE_BOXES,              /* Integer, Long, ...: header and alignment */
    HP_WASTE_KINDS
};

typedef struct {
    uint64_t bytes, count;
    uint32_t sample; /* the object wasting most, or HP_NO_OBJECT */
    uint64_t sample_bytes;
} hp_waste_kind;

typedef struct {
    uint32_t string; /* one of the copies */
    uint64_t count, bytes;
} hp_dup_string;

typedef struct {
    hp_waste_kind kinds[HP_WASTE_KINDS];
    hp_dup_string *dups; /* largest waste first */
    size_t ndups;
    uint64_t distinct_dups; /* values that occur more than once */
} hp_waste;

int hp_waste_find(hp_waste *w, const hp_heap *h, hp_error *err);
void hp_waste_free(hp_waste *w);
const char *hp_waste_kind_name(int kind);

#endif
