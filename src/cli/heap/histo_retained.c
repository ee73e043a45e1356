/* Rows per class from the graph's classof words, and what all instances of a class retain together.
 */
#include "cli/heap/histo_retained.h"

#include <stdlib.h>
#include <string.h>

#include "cli/heap/bigarray.h"

enum { CHUNK = 1 << 20 }; /* entries between drops of mapped pages */

typedef struct {
    hp_histo *hs;
    uint32_t *by_class; /* class index -> row + 1 */
    uint32_t prim[HP_T_LONG + 1];
    hp_idmap unknown; /* class ID without a CLASS DUMP -> row + 1 */
    size_t cap;
} row_map;

static uint32_t new_row(row_map *m, uint64_t class_id, uint8_t prim)
{
    hp_histo *hs = m->hs;
    if (hs->nrows == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        hp_histo_row *v = realloc(hs->rows, cap * sizeof *v);
        if (!v) return 0;
        hs->rows = v;
        m->cap = cap;
    }
    hs->rows[hs->nrows++] = (hp_histo_row){class_id, prim, 0, 0, 0};
    return (uint32_t)hs->nrows;
}

/* The row + 1 of object obj (0: a class object, or out of memory with *oom set). */
static uint32_t row_of(row_map *m, const hp_graph *g, uint32_t obj, int *oom)
{
    uint32_t c = g->classof[obj], at = HP_CLASSOF_INDEX(c), *slot;
    if (HP_CLASSOF_KIND(c) == HP_CLASSOF_CLASS) return 0;
    if (HP_CLASSOF_KIND(c) == HP_CLASSOF_PRIM_ARRAY) {
        slot = &m->prim[at <= HP_T_LONG ? at : 0];
        if (!*slot) *slot = new_row(m, 0, (uint8_t)at);
    } else if (at != HP_CLASSOF_UNKNOWN) {
        slot = &m->by_class[at];
        if (!*slot) *slot = new_row(m, g->classes.v[at].id, 0);
    } else { /* rare: decode the object for its class ID */
        hp_sub s;
        hp_graph_object(g, obj, &s);
        const uint64_t *r = hp_idmap_get(&m->unknown, s.ref);
        if (r) return (uint32_t)*r;
        uint32_t row = new_row(m, s.ref, 0);
        if (!row || hp_idmap_put(&m->unknown, s.ref, row) < 0) *oom = 1;
        return row;
    }
    *oom |= *slot == 0;
    return *slot;
}

static void count(hp_histo *hs, const hp_graph *g, uint32_t obj, uint32_t row)
{
    uint32_t kind = HP_CLASSOF_KIND(g->classof[obj]);
    uint64_t bytes = hp_graph_shallow(g, obj);
    if (kind == HP_CLASSOF_CLASS) {
        hs->classes++;
        return;
    }
    hs->rows[row - 1].count++;
    hs->rows[row - 1].bytes += bytes;
    hs->instances++;
    hs->bytes += bytes;
    hs->plain += kind == HP_CLASSOF_INSTANCE;
    hs->obj_arrays += kind == HP_CLASSOF_OBJ_ARRAY;
    hs->prim_arrays += kind == HP_CLASSOF_PRIM_ARRAY;
}

int hp_histo_from_graph(hp_histo *hs, const hp_heap *h, uint32_t **vertex_rows, hp_error *err)
{
    const hp_graph *g = &h->g;
    const hp_domtree *d = &h->d;
    row_map m = {hs, calloc(g->classes.n + 1, sizeof *m.by_class), {0}, {0}, 0};
    uint32_t *rows = hp_big_malloc(((size_t)d->n + 1) * sizeof *rows);
    int oom = !m.by_class || !rows;
    memset(hs, 0, sizeof *hs);
    hs->roots = g->nroots;
    for (size_t r = 0; r < g->nroots; r++)
        hs->thread_roots += g->roots[r].kind == HP_ROOT_THREAD_OBJECT;
    if (!oom) rows[0] = 0;
    for (uint32_t i = 0; !oom && i < g->obj.n; i++) { /* by object: classof[], shallow[] in order */
        uint32_t row = row_of(&m, g, i, &oom);
        if (!oom) count(hs, g, i, row);
        rows[d->pre[i]] = hp_dom_reachable(d, i) ? row : 0;
    }
    hp_heap_release(h, d->pre, (size_t)d->n * 4);
    hp_heap_release(h, g->classof, (size_t)g->obj.n * 4);
    hp_heap_release(h, g->shallow, (size_t)g->obj.n * 4);
    free(m.by_class);
    hp_idmap_free(&m.unknown);
    if (oom) {
        free(rows);
        hp_histo_free(hs);
        return hp_fail(err, 0, "out of memory");
    }
    *vertex_rows = rows;
    return 0;
}

typedef struct {
    uint32_t *w, *pos;
    size_t len, cap;
} walk_stack;

static int push(walk_stack *st, uint32_t w, uint32_t pos)
{
    if (st->len == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 1024;
        uint32_t *nw = realloc(st->w, cap * sizeof *nw);
        if (nw) st->w = nw;
        uint32_t *np = nw ? realloc(st->pos, cap * sizeof *np) : NULL;
        if (!np) return -1;
        st->pos = np;
        st->cap = cap;
    }
    st->w[st->len] = w;
    st->pos[st->len++] = pos;
    return 0;
}

/*
 * Walks the dominator tree depth first, counting for each row how many of its
 * objects are on the current path: a vertex is marked in `counted` only if no
 * dominator of it is of the same class, so nothing is counted twice.
 */
static int mark_counted(const hp_domkids *k, const uint32_t *rows, size_t nrows, uint8_t *counted)
{
    uint32_t *active = calloc(nrows + 1, sizeof *active);
    walk_stack st = {0};
    int rc = active ? push(&st, 0, k->start[0]) : -1;
    if (rc == 0) active[0] = 1; /* the virtual root, popped last */
    while (rc == 0 && st.len > 0) {
        size_t top = st.len - 1;
        if (st.pos[top] == k->start[st.w[top] + 1]) {
            active[rows[st.w[top]]]--;
            st.len--;
            continue;
        }
        uint32_t c = k->child[st.pos[top]++];
        if (rows[c] && active[rows[c]] == 0) counted[c >> 3] |= (uint8_t)(1u << (c & 7));
        active[rows[c]]++;
        rc = push(&st, c, k->start[c]);
    }
    free(st.w);
    free(st.pos);
    free(active);
    return rc;
}

int hp_histo_add_retained(hp_histo *hs, const hp_heap *h, const hp_domkids *k,
                          const uint32_t *vertex_rows, hp_error *err)
{
    const hp_domtree *d = &h->d;
    uint8_t *counted = calloc((size_t)d->n / 8 + 1, 1);
    if (!counted || mark_counted(k, vertex_rows, hs->nrows, counted) != 0) {
        free(counted);
        return hp_fail(err, 0, "out of memory");
    }
    for (uint32_t v = 1; v <= d->n; v++) { /* retained[] read in order */
        if (counted[v >> 3] >> (v & 7) & 1) hs->rows[vertex_rows[v] - 1].retained += d->retained[v];
        if (v % CHUNK == 0) hp_heap_release(h, d->retained + v - CHUNK, CHUNK * 8);
    }
    hp_heap_release(h, d->retained, ((size_t)d->n + 1) * 8);
    free(counted);
    return 0;
}

int hp_histo_copy(hp_histo *to, const hp_histo *from, hp_error *err)
{
    *to = *from;
    to->rows = malloc((from->nrows + 1) * sizeof *to->rows);
    if (!to->rows) return hp_fail(err, 0, "out of memory");
    if (from->nrows) memcpy(to->rows, from->rows, from->nrows * sizeof *to->rows);
    return 0;
}
