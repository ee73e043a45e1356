/*
 * Leak suspects: the objects, and classes of many small objects, that each
 * retain at least a tenth of the reachable heap. Object suspects are found
 * from the top of the dominator tree: an object over the threshold whose
 * memory splits among two or more objects over it is only a container, and
 * those are looked at instead. From a suspect, the accumulation point is
 * found by following the largest dominated object while it holds 80% or more
 * of its parent's retained size and is not of the parent's class (so a linked
 * list ends at its head).
 */
#ifndef HPROF_CLI_HEAP_SUSPECTS_H
#define HPROF_CLI_HEAP_SUSPECTS_H

#include "cli/analyses/histo.h"
#include "cli/heap/heap.h"

typedef struct {
    uint32_t object;         /* the suspect object, or the largest instance of a class suspect */
    uint32_t accumulation;   /* object suspects: where the memory accumulates */
    const hp_histo_row *row; /* class suspects: the histogram row; NULL for objects */
    uint64_t retained;
} hp_suspect;

/* What a suspect's directly dominated objects are, by class. */
typedef struct {
    uint64_t key; /* class id, or element type | HP_PRIM_KEY for primitive arrays */
    uint64_t count, retained;
} hp_accumulated;

#define HP_PRIM_KEY (1ull << 63)

/* Suspects, largest first; `histo` must have retained sizes, vertex_rows as
 * hp_histo_from_graph() gives them. Caller frees *out. */
int hp_suspects_find(const hp_heap *h, const hp_domkids *k, const hp_histo *histo,
                     const uint32_t *vertex_rows, hp_suspect **out, size_t *n, hp_error *err);
/* The class name an hp_accumulated key stands for. */
void hp_accumulated_name(const hp_heap *h, uint64_t key, char *buf, size_t cap);
/* Groups the objects obj dominates directly by class, largest retained first.
 * Caller frees *out. */
int hp_suspect_accumulates(const hp_heap *h, uint32_t obj, hp_accumulated **out, size_t *n,
                           hp_error *err);

#endif
