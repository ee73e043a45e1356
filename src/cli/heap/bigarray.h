/*
 * Allocation of arrays with an entry per object or reference (millions):
 * backed by transparent huge pages where the kernel offers them on request,
 * so filling them costs far fewer page faults and random reads fewer TLB
 * misses. Freed with free().
 */
#ifndef HPROF_CLI_HEAP_BIGARRAY_H
#define HPROF_CLI_HEAP_BIGARRAY_H

#include <stddef.h>

void *hp_big_malloc(size_t bytes);
void *hp_big_calloc(size_t bytes);
void *hp_big_realloc(void *p, size_t bytes);

#endif
