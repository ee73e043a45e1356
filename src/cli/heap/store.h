/*
 * The on-disk index: a heap dump's graph and dominator tree, written by the
 * first analysis while it computes them (spill.h) and mapped read-only by it
 * and by the next ones, which start without reading the dump's heap records.
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

#include "cli/heap/heap.h"

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
/* How hp_store_attach_image checks an image. */
enum {
    HP_STORE_TRUSTED, /* written by this process: no check */
    HP_STORE_CHECK,   /* in memory */
    HP_STORE_MAPPED,  /* mapped from a file: checked, then its pages dropped */
    HP_STORE_PARTIAL, /* written by this process, findings not yet: graph and dominators only */
};
int hp_store_attach_image(hp_heap *h, const uint8_t *image, size_t len, const hp_store_key *key,
                          const hp_model *m, int how);
/* Whether attached arrays are consistent: sorted keys, offsets inside the dump,
 * edges and roots naming objects, preorder a permutation, each idom before its
 * vertex, classof words in range (store_check.c; the findings are checked
 * as they are read). `mapped`: drop each array's pages
 * once checked. */
int hp_store_consistent(const hp_heap *h, uint64_t file_size, int mapped);
/* Writes h's index (graph and dominators, all in memory) to out. Returns 0 or -1. */
int hp_store_write(const hp_heap *h, const hp_store_key *key, FILE *out);
/* Completes an index built through sp: the last sections of the graph, then
 * the header (without findings). */
int hp_store_finish(hp_heap *h, hp_spill *sp, const hp_store_key *key);
/* Adds the findings and rewrites the header. */
int hp_store_finish_findings(const hp_heap *h, const hp_findings *fx, hp_spill *sp,
                             const hp_store_key *key);

/* Maps the dump's index and attaches it; 0 on success (h->store set). */
int hp_store_load(hp_heap *h, const hp_file *f, const hp_model *m);
/* Opens a new index file for dump h->dump under a temporary name (tmp, cap
 * bytes), fills key; the file descriptor, or -1 if no place is writable. */
int hp_store_create(const hp_heap *h, const hp_file *f, const hp_model *m, hp_store_key *key,
                    char *tmp, size_t cap);
/* Finishes the index written through sp (hp_store_create): the graph's last
 * sections, then the findings computed from it mapped; maps it into h and
 * gives it its final name. 0, or -1 (the temporary file removed; err set if
 * the findings could not be computed rather than written). */
int hp_store_commit(hp_heap *h, hp_spill *sp, const hp_store_key *key, const char *tmp,
                    hp_error *err);

#endif
