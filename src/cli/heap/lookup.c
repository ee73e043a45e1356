#include "cli/heap/lookup.h"

#include <stdlib.h>

typedef struct {
    uint32_t *v;
    size_t n, cap;
} list;

static int add(list *l, uint32_t x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        uint32_t *grown = realloc(l->v, cap * sizeof *grown);
        if (!grown) return -1;
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

static int done(list *l, int rc, uint32_t **out, size_t *n)
{
    if (rc != 0) {
        free(l->v);
        return -1;
    }
    *out = l->v ? l->v : malloc(sizeof **out);
    *n = l->n;
    return *out ? 0 : -1;
}

int hp_heap_children(const hp_heap *h, uint32_t w, uint32_t **kids, size_t *n)
{
    list l = {0};
    int rc = 0;
    for (uint32_t v = w + 1; v <= h->d.n && rc == 0; v++) /* a vertex's dominators precede it */
        if (h->d.idom[v] == w) rc = add(&l, v);
    hp_heap_release(h, h->d.idom, ((size_t)h->d.n + 1) * 4);
    return done(&l, rc, kids, n);
}

/* The object whose edges include edge e: the last v with out_start[v] <= e. */
static uint32_t edge_source(const hp_graph *g, uint32_t e)
{
    uint32_t lo = 0, hi = g->obj.n; /* out_start[lo] <= e < out_start[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->out_start[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int hp_heap_referrers(const hp_heap *h, uint32_t obj, size_t max, uint32_t **src, size_t *n,
                      size_t *total)
{
    const hp_graph *g = &h->g;
    list l = {0};
    int rc = 0;
    *total = 0;
    for (uint32_t e = 0; e < g->nedges && rc == 0; e++) {
        if (HP_EDGE_TARGET(g->out[e]) != obj) continue;
        if (++*total <= max) rc = add(&l, edge_source(g, e));
    }
    hp_heap_release(h, g->out, (size_t)g->nedges * 4);
    return done(&l, rc, src, n);
}

/* A class's instances and arrays share its index in either kind. */
static int same_class(uint32_t c, uint32_t word)
{
    uint32_t kind = HP_CLASSOF_KIND(c);
    if (HP_CLASSOF_KIND(word) == HP_CLASSOF_PRIM_ARRAY) return c == word;
    return HP_CLASSOF_INDEX(c) == HP_CLASSOF_INDEX(word) &&
           (kind == HP_CLASSOF_INSTANCE || kind == HP_CLASSOF_OBJ_ARRAY);
}

int hp_heap_instances(const hp_heap *h, uint32_t word, uint32_t **objs, size_t *n)
{
    list l = {0};
    int rc = 0;
    for (uint32_t i = 0; i < h->g.obj.n && rc == 0; i++)
        if (same_class(h->g.classof[i], word)) rc = add(&l, i);
    hp_heap_release(h, h->g.classof, (size_t)h->g.obj.n * 4);
    return done(&l, rc, objs, n);
}
