/*
 * The semidominator pass of dominators.c (semi-NCA), in a working set that
 * needs full arrays only for the DFS tree: most heap objects have exactly one
 * incoming reference, and such an object's semidominator and immediate
 * dominator are its DFS parent, so predecessor lists and semidominators are
 * kept only for objects with two or more.
 */
#ifndef HPROF_CLI_HEAP_DOMINATORS_WORK_H
#define HPROF_CLI_HEAP_DOMINATORS_WORK_H

#include "cli/heap/dominators.h"

static inline int hp_bit(const uint8_t *b, uint32_t i)
{
    return b[i >> 3] >> (i & 7) & 1;
}

/* By object number, then by preorder number (hp_dom_work_to_preorder). */
typedef struct {
    uint8_t *top;            /* children of the virtual root */
    uint64_t *multi;         /* not top, two or more incoming edges */
    uint32_t *rank;          /* multi vertices before each 64-bit word of `multi` */
    uint32_t *pstart, *psrc; /* their predecessors, by rank */
    uint32_t m;              /* how many */
} hp_dom_work;

/* From the edges and the virtual root's children (top, by object; w takes it
 * over), in object numbers. */
int hp_dom_work_init(hp_dom_work *w, const hp_graph *g, uint8_t *top);
/* Renumbers w by the DFS preorder (pre: object -> preorder number). */
int hp_dom_work_to_preorder(hp_dom_work *w, const uint32_t *pre, uint32_t n);
void hp_dom_work_free(hp_dom_work *w);
/* Turns parent[1..n] (DFS tree, preorder numbers) into immediate dominators. */
int hp_semi_nca(const hp_dom_work *w, uint32_t *parent, uint32_t n);

#endif
