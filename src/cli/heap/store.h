/*
 * The on-disk index: a heap dump's graph and dominator tree saved after the
 * first analysis and mapped read-only by the next, so it starts without
 * reading the dump's heap records.
 *
 * It lives next to the dump as FILE.index, or, if that directory is not
 * writable, in $XDG_CACHE_HOME/hprof (default ~/.cache/hprof) as
 * NAME.DEV-INODE.index. It is used only if its header matches the dump's
 * size, modification time (ns), device and inode, the heap dump number, the
 * ID size and the size model, and its arrays pass a consistency check;
 * otherwise it is rebuilt and replaced (written to a temporary name, then
 * renamed).
 */
#ifndef HPROF_CLI_HEAP_STORE_H
#define HPROF_CLI_HEAP_STORE_H

#include <stdio.h>

#include "heap/heap.h"

/* What ties an index to one dump. */
typedef struct {
    uint64_t size, mtime_s, mtime_ns, ino, dev, dump;
    uint32_t id_size;
    char model[8];
} hp_store_key;

int hp_store_key_of(hp_store_key *k, const hp_file *f, size_t dump, const hp_model *m);

/*
 * Checks an index image against key and, if it is whole and consistent,
 * points h's graph and dominator arrays into it and rebuilds the classes from
 * the dump (h->ix must be built). Returns 0, or -1 (h untouched) if unusable.
 */
int hp_store_attach(hp_heap *h, const uint8_t *image, size_t len, const hp_store_key *key,
                    const hp_model *m);
/* Whether attached arrays are consistent: sorted IDs, offsets inside the dump,
 * edges and roots naming objects, preorder a permutation, each idom before its
 * vertex (store_check.c). */
int hp_store_consistent(const hp_heap *h, uint64_t file_size);
/* Writes h's index (graph and dominators) to out. Returns 0 or -1. */
int hp_store_write(const hp_heap *h, const hp_store_key *key, FILE *out);

/* Maps the dump's index and attaches it; 0 on success (h->store set). */
int hp_store_load(hp_heap *h, const hp_file *f, const hp_model *m);
/* Writes the index for h if no usable one exists; failures are silent. */
void hp_store_save(const hp_heap *h, const hp_file *f, const hp_model *m);

#endif
