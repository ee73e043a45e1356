/* The class histogram from the object graph, with retained sizes beside the shallow ones. */
#ifndef HPROF_CLI_HEAP_HISTO_RETAINED_H
#define HPROF_CLI_HEAP_HISTO_RETAINED_H

#include "cli/analyses/histo.h"
#include "cli/heap/heap.h"

/*
 * Counts the graph's objects by class (one row per class, per primitive array
 * type, per class ID without a CLASS DUMP) and fills *vertex_rows: per
 * preorder number, the row + 1 of a strongly reachable instance or array, 0
 * for class objects and unreachable ones (caller frees).
 */
int hp_histo_from_graph(hp_histo *hs, const hp_heap *h, uint32_t **vertex_rows, hp_error *err);
/* Fills rows[].retained: the bytes the row's objects retain together. */
int hp_histo_add_retained(hp_histo *hs, const hp_heap *h, const hp_domkids *k,
                          const uint32_t *vertex_rows, hp_error *err);

/* A copy of a histogram (its rows in new memory). */
int hp_histo_copy(hp_histo *to, const hp_histo *from, hp_error *err);

#endif
