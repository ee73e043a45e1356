/*
 * Dominator tree and retained sizes of a heap graph (semi-NCA: Lengauer-Tarjan
 * semidominators, then nearest common ancestors; iterative, no recursion).
 *
 * The tree is rooted at a virtual root whose children are the GC roots and
 * every object not strongly reachable from them (only through referents of
 * weak/soft/phantom/finalizer references, or not at all). Referents count as
 * references when dominators are computed but not for reachability, and only
 * strongly reachable objects count in retained sizes: this is how VisualVM's
 * heap library defines them.
 */
#ifndef HPROF_CLI_HEAP_DOMINATORS_H
#define HPROF_CLI_HEAP_DOMINATORS_H

#include "cli/heap/graph.h"

typedef struct {
    uint32_t n;         /* objects; vertices are numbered 0 (virtual root) .. n in DFS preorder */
    uint32_t *pre;      /* object -> preorder number */
    uint32_t *vertex;   /* preorder number -> object (vertex[0] unused) */
    uint32_t *idom;     /* preorder number -> preorder number of its immediate dominator */
    uint64_t *retained; /* preorder number -> retained bytes (retained[0]: all reachable) */
    uint8_t *reachable; /* bitmap over objects: strongly reachable from a GC root */
    int borrowed;       /* the arrays live in a mapped index file (store.h) */
} hp_domtree;

/* Computes the tree; with a file behind sp, the graph's edges are dropped from
 * memory on the way and the tree's arrays end up in the file, not in d. */
int hp_dominators(hp_domtree *d, hp_graph *g, hp_spill *sp, hp_error *err);
void hp_domtree_free(hp_domtree *d);

static inline int hp_dom_reachable(const hp_domtree *d, uint32_t obj)
{
    return d->reachable[obj >> 3] >> (obj & 7) & 1;
}
static inline uint64_t hp_dom_retained(const hp_domtree *d, uint32_t obj)
{
    return d->retained[d->pre[obj]];
}
/* The immediate dominator of obj, or HP_NO_OBJECT if it is the virtual root. */
static inline uint32_t hp_dom_idom(const hp_domtree *d, uint32_t obj)
{
    uint32_t p = d->idom[d->pre[obj]];
    return p == 0 ? HP_NO_OBJECT : d->vertex[p];
}

/* Children of every vertex in the dominator tree, in CSR form over preorder numbers. */
typedef struct {
    uint32_t *start; /* n + 2 entries */
    uint32_t *child; /* preorder numbers */
} hp_domkids;

int hp_domkids_build(hp_domkids *k, const hp_domtree *d, hp_error *err);
void hp_domkids_free(hp_domkids *k);

#endif
