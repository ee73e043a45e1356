/* `histo --retained`: retained sizes beside the shallow ones. */
#ifndef HPROF_CLI_HEAP_HISTO_RETAINED_H
#define HPROF_CLI_HEAP_HISTO_RETAINED_H

#include "heap/heap.h"
#include "histo.h"

/* Fills rows[].retained: the bytes the row's objects retain together. */
int hp_histo_add_retained(hp_histo *h, const hp_heap *hh, hp_error *err);

#endif
