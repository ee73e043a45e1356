/* Retained bytes per histogram row: what all instances of a class retain together. */
#include "heap/histo_retained.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    hp_idmap by_class; /* class id -> row + 1 */
    size_t prim[HP_T_LONG + 1];
} row_map;

static size_t row_of(const row_map *m, const hp_graph *g, uint32_t obj)
{
    hp_sub s;
    hp_graph_object(g, obj, &s);
    if (s.tag == HP_PRIM_ARRAY_DUMP || s.tag == HP_PRIM_ARRAY_NODATA) return m->prim[s.elem_type];
    if (s.tag != HP_INSTANCE_DUMP && s.tag != HP_OBJ_ARRAY_DUMP) return 0;
    const uint64_t *r = hp_idmap_get(&m->by_class, s.ref);
    return r ? (size_t)*r : 0;
}

typedef struct {
    uint32_t *w, *pos;
    size_t *row;
    size_t len, cap;
} walk_stack;

static int push(walk_stack *st, uint32_t w, uint32_t pos, size_t row)
{
    if (st->len == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 1024;
        uint32_t *nw = realloc(st->w, cap * sizeof *nw);
        if (nw) st->w = nw;
        uint32_t *np = nw ? realloc(st->pos, cap * sizeof *np) : NULL;
        if (np) st->pos = np;
        size_t *nr = np ? realloc(st->row, cap * sizeof *nr) : NULL;
        if (!nr) return -1;
        st->row = nr;
        st->cap = cap;
    }
    st->w[st->len] = w;
    st->pos[st->len] = pos;
    st->row[st->len++] = row;
    return 0;
}

/*
 * Walks the dominator tree depth first, counting for each row how many of its
 * objects are on the current path: an object adds its retained size only if
 * no dominator of it is of the same class, so nothing is counted twice.
 */
static int walk(hp_histo *h, const hp_heap *hh, const hp_domkids *k, const row_map *m)
{
    uint32_t *active = calloc(h->nrows + 1, sizeof *active);
    walk_stack st = {0};
    int rc = active ? push(&st, 0, k->start[0], 0) : -1;
    if (rc == 0) active[0] = 1; /* the virtual root, popped last */
    while (rc == 0 && st.len > 0) {
        size_t top = st.len - 1;
        if (st.pos[top] == k->start[st.w[top] + 1]) {
            active[st.row[top]]--;
            st.len--;
            continue;
        }
        uint32_t c = k->child[st.pos[top]++], obj = hh->d.vertex[c];
        size_t row = hp_dom_reachable(&hh->d, obj) ? row_of(m, &hh->g, obj) : 0;
        if (row && active[row] == 0) h->rows[row - 1].retained += hh->d.retained[c];
        active[row]++;
        rc = push(&st, c, k->start[c], row);
    }
    free(st.w);
    free(st.pos);
    free(st.row);
    free(active);
    return rc;
}

int hp_histo_add_retained(hp_histo *h, const hp_heap *hh, hp_error *err)
{
    row_map m;
    hp_domkids k = {0};
    memset(&m, 0, sizeof m);
    int rc = 0;
    for (size_t i = 0; i < h->nrows && rc == 0; i++) {
        if (h->rows[i].prim_type)
            m.prim[h->rows[i].prim_type] = i + 1;
        else if (hp_idmap_put(&m.by_class, h->rows[i].class_id, i + 1) < 0)
            rc = -1;
    }
    if (rc == 0 && hp_domkids_build(&k, &hh->d, err) != 0) {
        hp_idmap_free(&m.by_class);
        return -1;
    }
    if (rc == 0) rc = walk(h, hh, &k, &m);
    hp_domkids_free(&k);
    hp_idmap_free(&m.by_class);
    return rc == 0 ? 0 : hp_fail(err, 0, "out of memory");
}
