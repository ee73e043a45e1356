/*
 * Lookups a page or a report needs for one object, by a scan of the index's
 * arrays instead of inverse arrays kept for every object: the scans read a
 * few hundred MB in order on the largest dumps (tens of milliseconds) and
 * drop the mapped pages behind them.
 */
#ifndef HPROF_CLI_HEAP_LOOKUP_H
#define HPROF_CLI_HEAP_LOOKUP_H

#include "cli/heap/heap.h"

/* The preorder numbers of the vertices w dominates directly, in preorder
 * (caller frees *kids). Returns 0 or -1 (out of memory). */
int hp_heap_children(const hp_heap *h, uint32_t w, uint32_t **kids, size_t *n);
/* The objects referring to obj, one per reference, in object order: the first
 * `max` in *src (caller frees), their number in *total. 0 or -1. */
int hp_heap_referrers(const hp_heap *h, uint32_t obj, size_t max, uint32_t **src, size_t *n,
                      size_t *total);
/* The instances and arrays of one class, named by a classof word (hp_graph.classof:
 * a primitive array type, or a class index of either kind), in object order
 * (caller frees *objs). 0 or -1. */
int hp_heap_instances(const hp_heap *h, uint32_t word, uint32_t **objs, size_t *n);

#endif
