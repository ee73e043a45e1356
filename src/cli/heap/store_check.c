/* Consistency of an index read from disk: everything the readers index with
 * is in range. With `mapped`, each array's pages are dropped once checked, so
 * the check does not leave the whole index resident. */
#include <sys/mman.h>
#include <unistd.h>

#include "cli/heap/store.h"

static void release(int mapped, const void *p, size_t bytes)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = (uintptr_t)p;
    uintptr_t to = (from + bytes) / page * page;
    from = (from + page - 1) / page * page; /* whole pages inside the array only */
    if (mapped && from < to) madvise((void *)from, to - from, MADV_DONTNEED);
}

static int keys_ok(const hp_objects *o)
{
    if (o->nsegs == 0 || o->segs[0].first != 0 || o->shift > 63 || o->align > 63) return 0;
    for (uint32_t s = 1; s < o->nsegs; s++)
        if (o->segs[s].hi <= o->segs[s - 1].hi || o->segs[s].first <= o->segs[s - 1].first ||
            o->segs[s].first >= o->n)
            return 0;
    for (uint32_t i = 1, s = 0; i < o->n; i++) {
        int seg_start = s + 1 < o->nsegs && o->segs[s + 1].first == i;
        s += (uint32_t)seg_start;
        if (!seg_start && o->keys[i - 1] >= o->keys[i]) return 0;
    }
    uint64_t last = (uint64_t)o->segs[o->nsegs - 1].hi << 32 | o->keys[o->n - 1];
    if ((last >> o->shift) + 2 != o->dir_len) return 0;
    for (uint32_t b = 0; b < o->dir_len; b++)
        if (o->dir[b] > o->n || (b && o->dir[b - 1] > o->dir[b])) return 0;
    return o->dir[o->dir_len - 1] == o->n;
}

static int objects_ok(const hp_objects *o, uint64_t file_size, int mapped)
{
    if (o->n == 0) return 1;
    int ok = keys_ok(o);
    release(mapped, o->keys, (size_t)o->n * 4);
    release(mapped, o->dir, (size_t)o->dir_len * 4);
    for (uint32_t i = 0; ok && i < o->n; i++)
        ok = o->offsets[i] < file_size;
    release(mapped, o->offsets, (size_t)o->n * 8);
    return ok;
}

static int edges_ok(const hp_graph *g, int mapped)
{
    int ok = g->out_start[0] == 0 && g->out_start[g->obj.n] == g->nedges;
    for (uint32_t i = 0; ok && i < g->obj.n; i++)
        ok = g->out_start[i] <= g->out_start[i + 1];
    release(mapped, g->out_start, ((size_t)g->obj.n + 1) * 4);
    for (uint32_t e = 0; ok && e < g->nedges; e++)
        ok = HP_EDGE_TARGET(g->out[e]) < g->obj.n;
    release(mapped, g->out, (size_t)g->nedges * 4);
    for (size_t r = 0; ok && r < g->nroots; r++)
        ok = g->roots[r].object < g->obj.n;
    return ok;
}

static int tree_ok(const hp_domtree *d, int mapped)
{
    int ok = d->idom[0] == 0;
    for (uint32_t v = 0; ok && v < d->n; v++)
        ok = d->pre[v] >= 1 && d->pre[v] <= d->n && d->vertex[d->pre[v]] == v;
    release(mapped, d->pre, (size_t)d->n * 4);
    release(mapped, d->vertex, ((size_t)d->n + 1) * 4);
    for (uint32_t w = 1; ok && w <= d->n; w++)
        ok = d->idom[w] < w;
    release(mapped, d->idom, ((size_t)d->n + 1) * 4);
    return ok;
}

static int classof_ok(const hp_graph *g, int mapped)
{
    int ok = 1;
    for (uint32_t i = 0; ok && i < g->obj.n; i++) {
        uint32_t c = g->classof[i], kind = HP_CLASSOF_KIND(c), at = HP_CLASSOF_INDEX(c);
        if (kind == HP_CLASSOF_CLASS)
            ok = at == 0;
        else if (kind == HP_CLASSOF_PRIM_ARRAY)
            ok = at <= 0xff && hp_is_prim_type((uint8_t)at);
        else
            ok = at < g->classes.n || at == HP_CLASSOF_UNKNOWN;
    }
    release(mapped, g->classof, (size_t)g->obj.n * 4);
    return ok;
}

int hp_store_consistent(const hp_heap *h, uint64_t file_size, int mapped)
{
    return objects_ok(&h->g.obj, file_size, mapped) && edges_ok(&h->g, mapped) &&
           tree_ok(&h->d, mapped) && classof_ok(&h->g, mapped);
}
