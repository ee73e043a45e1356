/* Consistency of an index read from disk: everything the readers index with is in range. */
#include "heap/store.h"

static int objects_ok(const hp_objects *o, uint64_t file_size)
{
    if (o->n == 0) return 1;
    for (uint32_t i = 0; i < o->n; i++)
        if ((i && o->ids[i - 1] >= o->ids[i]) || o->offsets[i] >= file_size) return 0;
    if (o->shift > 63 || ((o->ids[o->n - 1] - o->ids[0]) >> o->shift) + 2 != o->dir_len) return 0;
    for (uint32_t b = 0; b < o->dir_len; b++)
        if (o->dir[b] > o->n || (b && o->dir[b - 1] > o->dir[b])) return 0;
    return o->dir[o->dir_len - 1] == o->n;
}

static int edges_ok(const hp_graph *g)
{
    if (g->out_start[0] != 0 || g->out_start[g->obj.n] != g->nedges) return 0;
    for (uint32_t i = 0; i < g->obj.n; i++)
        if (g->out_start[i] > g->out_start[i + 1]) return 0;
    for (uint32_t e = 0; e < g->nedges; e++)
        if (HP_EDGE_TARGET(g->out[e]) >= g->obj.n) return 0;
    for (size_t r = 0; r < g->nroots; r++)
        if (g->roots[r].object >= g->obj.n) return 0;
    return 1;
}

static int tree_ok(const hp_domtree *d)
{
    if (d->idom[0] != 0) return 0;
    for (uint32_t v = 0; v < d->n; v++)
        if (d->pre[v] < 1 || d->pre[v] > d->n || d->vertex[d->pre[v]] != v) return 0;
    for (uint32_t w = 1; w <= d->n; w++)
        if (d->idom[w] >= w) return 0;
    return 1;
}

int hp_store_consistent(const hp_heap *h, uint64_t file_size)
{
    return objects_ok(&h->g.obj, file_size) && edges_ok(&h->g) && tree_ok(&h->d);
}
