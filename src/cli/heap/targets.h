/* Resolving what the user names: an object ID, or a class and its largest instances. */
#ifndef HPROF_CLI_HEAP_TARGETS_H
#define HPROF_CLI_HEAP_TARGETS_H

#include "cli/heap/heap.h"

/*
 * `what` is an object ID ("0x1f2e", or decimal) or a Java-form class name
 * ("java.util.HashMap", "int[]"). For a class, *objs gets its `max` largest
 * instances by retained size (needs dominators). Returns 0 (n = 0: no match)
 * or -1 on out of memory.
 */
int hp_find_targets(const hp_heap *h, const char *what, size_t max, uint32_t **objs, size_t *n,
                    hp_error *err);

/* Parses an object ID; returns HP_NO_OBJECT if `what` is not one or not in the dump. */
uint32_t hp_find_object(const hp_heap *h, const char *what);

#endif
