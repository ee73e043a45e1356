/*
 * Call trees for flame graphs and folded stacks: one node per distinct path
 * of function names from the root (or from the leaf, inverted), each with
 * the total and self value of one or two profiles (channel 0 and 1, for
 * differential graphs). Names live in the tree's own string pool, so trees
 * of two profiles can be combined.
 */
#ifndef HPROF_CLI_RENDER_TREE_H
#define HPROF_CLI_RENDER_TREE_H

#include "profile/profile.h"

#define HP_TREE_LINES_VARY INT32_MIN /* the node's frames have different lines */

typedef struct {
    uint32_t name;                   /* in hp_tree.names */
    uint8_t kind;                    /* enum hp_fkind */
    int32_t line;                    /* of the frames merged here, or HP_TREE_LINES_VARY */
    uint32_t parent, child, sibling; /* UINT32_MAX: none */
    uint64_t total[2], self[2];
} hp_tnode;

typedef struct {
    hp_profile names; /* only its string pool is used */
    hp_tnode *nodes;  /* nodes[0] is the root */
    uint32_t count, cap;
    hp_itab tab; /* (parent, name, kind) -> node */
    int inverted;
} hp_tree;

int hp_tree_init(hp_tree *t, int inverted);
void hp_tree_free(hp_tree *t);
/* Adds value `value` of every stack of p into channel 0 or 1. With
 * `threads`, each stack hangs under a "[thread NAME]" node. 0 or -1 (OOM). */
int hp_tree_add(hp_tree *t, const hp_profile *p, int value, int channel, int threads);
static inline const char *hp_tree_name(const hp_tree *t, uint32_t node)
{
    return hp_profile_str(&t->names, t->nodes[node].name);
}

#endif
