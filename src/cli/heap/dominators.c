#include "cli/heap/dominators.h"

#include "cli/heap/bigarray.h"

#include <stdlib.h>
#include <string.h>

#include "cli/heap/dominators_work.h"

enum { CHUNK = 1 << 16 }; /* objects per read of a spilled array */

static void set_bit(uint8_t *b, uint32_t i)
{
    b[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Marks objects reachable from the GC roots without crossing weak edges (BFS). */
static int mark_reachable(hp_domtree *d, const hp_graph *g)
{
    uint32_t *queue = hp_big_malloc(((size_t)g->obj.n + 1) * sizeof *queue), head = 0, tail = 0;
    if (!queue) return -1;
    for (size_t r = 0; r < g->nroots; r++)
        if (!hp_bit(d->reachable, g->roots[r].object)) {
            set_bit(d->reachable, g->roots[r].object);
            queue[tail++] = g->roots[r].object;
        }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            uint32_t t = g->out[e];
            if ((t & HP_WEAK_EDGE) || hp_bit(d->reachable, t)) continue;
            set_bit(d->reachable, t);
            queue[tail++] = t;
        }
    }
    free(queue);
    return 0;
}

typedef struct {
    uint32_t *obj, *pos, *k;
    size_t len, cap;
} dfs_stack;

/* Where the DFS puts vertex[] (preorder number -> object): straight into
 * d->vertex when it is in memory, else streamed to the spill file. */
typedef struct {
    hp_domtree *d;
    hp_spill *sp;
    uint32_t *buf, len, next;
    int rc;
} vertex_out;

static void flush_vertices(vertex_out *o)
{
    if (o->d->vertex)
        memcpy(o->d->vertex + o->next - o->len, o->buf, (size_t)o->len * 4);
    else if (hp_spill_append(o->sp, HP_SEC_VERTEX, o->buf, (size_t)o->len * 4) != 0)
        o->rc = -1;
    o->len = 0;
}

static void put_vertex(vertex_out *o, uint32_t obj)
{
    o->buf[o->len++] = obj;
    o->next++;
    if (o->len == CHUNK) flush_vertices(o);
}

static int push(dfs_stack *st, uint32_t obj, uint32_t pos, uint32_t k)
{
    if (st->len == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 1024;
        uint32_t *a = realloc(st->obj, cap * 4), *b = a ? realloc(st->pos, cap * 4) : NULL;
        if (a) st->obj = a;
        if (b) st->pos = b;
        uint32_t *c = b ? realloc(st->k, cap * 4) : NULL;
        if (!c) return -1;
        st->k = c;
        st->cap = cap;
    }
    st->obj[st->len] = obj;
    st->pos[st->len] = pos;
    st->k[st->len++] = k;
    return 0;
}

static int visit(vertex_out *o, dfs_stack *st, uint8_t *seen, uint32_t *parent, uint32_t obj,
                 uint32_t from, const hp_graph *g)
{
    if (hp_bit(seen, obj)) return 0;
    set_bit(seen, obj);
    parent[o->next] = from;
    uint32_t k = o->next;
    put_vertex(o, obj);
    return push(st, obj, g->out_start[obj], k);
}

/* Depth-first preorder from the virtual root over all edges: parent[] gets
 * the tree, vertex[] the order. */
static int number_dfs(vertex_out *o, const hp_graph *g, uint32_t *parent, const uint8_t *top)
{
    dfs_stack st = {0};
    uint8_t *seen = calloc((size_t)g->obj.n / 8 + 1, 1);
    int rc = seen ? 0 : -1;
    put_vertex(o, 0); /* vertex[0]: the virtual root */
    /* The virtual root's children: GC roots in file order, then the unreachable. */
    for (size_t r = 0; r <= g->nroots + g->obj.n && rc == 0; r++) {
        uint32_t start = r < g->nroots ? g->roots[r].object : (uint32_t)(r - g->nroots - 1);
        if (r == g->nroots || (r > g->nroots && !hp_bit(top, start))) continue;
        rc = visit(o, &st, seen, parent, start, 0, g);
        while (st.len > 0 && rc == 0) {
            size_t i = st.len - 1;
            if (st.pos[i] == g->out_start[st.obj[i] + 1]) {
                st.len--;
                continue;
            }
            uint32_t t = HP_EDGE_TARGET(g->out[st.pos[i]++]);
            rc = visit(o, &st, seen, parent, t, st.k[i], g);
        }
    }
    flush_vertices(o);
    free(seen);
    free(st.obj);
    free(st.pos);
    free(st.k);
    return rc || o->rc ? -1 : 0;
}

/* Retained bytes: each strongly reachable object's shallow size, summed up the tree. */
static int sum_retained(hp_domtree *d, const hp_graph *g, const hp_spill *sp)
{
    uint32_t *pre = malloc(CHUNK * 4), *shallow = malloc(CHUNK * 4);
    int rc = pre && shallow ? 0 : -1;
    for (uint32_t at = 0; at < d->n && rc == 0; at += CHUNK) {
        uint32_t len = d->n - at < CHUNK ? d->n - at : CHUNK;
        const uint32_t *p = hp_spill_read(sp, HP_SEC_PRE, d->pre, (size_t)at * 4, len * 4, pre);
        const uint32_t *s =
            hp_spill_read(sp, HP_SEC_SHALLOW, g->shallow, (size_t)at * 4, len * 4, shallow);
        if (!p || !s) {
            rc = -1;
            break;
        }
        for (uint32_t i = 0; i < len; i++) {
            uint64_t bytes = s[i], off;
            if (!hp_dom_reachable(d, at + i)) {
                bytes = 0;
            } else if (bytes == UINT32_MAX) { /* too large for the array: from the sub-record */
                const uint64_t *o = hp_spill_read(sp, HP_SEC_OFFSETS, g->obj.offsets,
                                                  (size_t)(at + i) * 8, 8, &off);
                bytes = o ? hp_graph_size_at(g, *o) : 0;
            }
            d->retained[p[i]] = bytes;
        }
    }
    free(pre);
    free(shallow);
    d->retained[0] = 0;
    for (uint32_t w = d->n; w >= 1; w--)
        d->retained[d->idom[w]] += d->retained[w];
    return rc;
}

/* pre[] is vertex[] inverted. */
static int invert_vertex(hp_domtree *d, const hp_spill *sp)
{
    uint32_t *vertex = malloc(CHUNK * 4);
    int rc = vertex && (d->pre = hp_big_malloc(((size_t)d->n + 1) * 4)) ? 0 : -1;
    for (uint32_t at = 1; at <= d->n && rc == 0; at += CHUNK) {
        uint32_t len = d->n + 1 - at < CHUNK ? d->n + 1 - at : CHUNK;
        const uint32_t *v =
            hp_spill_read(sp, HP_SEC_VERTEX, d->vertex, (size_t)at * 4, len * 4, vertex);
        if (!v) rc = -1;
        for (uint32_t i = 0; v && i < len; i++)
            d->pre[v[i]] = at + i;
    }
    free(vertex);
    return rc;
}

/* Reachability, the predecessor lists the semidominator pass needs, and the
 * DFS numbering; afterwards the edges are no longer needed in memory. */
static int prepare(hp_domtree *d, hp_graph *g, hp_spill *sp, hp_dom_work *w)
{
    uint32_t n = g->obj.n;
    uint8_t *top = calloc((size_t)n / 8 + 1, 1); /* children of the virtual root */
    if (!top || mark_reachable(d, g) != 0) {
        free(top);
        return -1;
    }
    for (size_t r = 0; r < g->nroots; r++)
        set_bit(top, g->roots[r].object);
    for (uint32_t i = 0; i < n; i++)
        if (!hp_dom_reachable(d, i)) set_bit(top, i);
    vertex_out o = {d, sp, malloc(CHUNK * 4), 0, 0, 0};
    int rc = hp_dom_work_init(w, g, top) == 0 && o.buf ? 0 : -1;
    if (rc == 0 && sp->fd < 0 && !(d->vertex = hp_big_malloc(((size_t)n + 1) * 4))) rc = -1;
    if (rc == 0) rc = number_dfs(&o, g, d->idom, w->top);
    free(o.buf);
    hp_spill_drop(sp, &g->out_start);
    hp_spill_drop(sp, &g->out);
    if (rc == 0) rc = invert_vertex(d, sp);
    if (rc == 0) rc = hp_dom_work_to_preorder(w, d->pre, n);
    if (rc == 0 && hp_spill_put(sp, HP_SEC_PRE, &d->pre, (size_t)n * 4) != 0) rc = -1;
    return rc;
}

int hp_dominators(hp_domtree *d, hp_graph *g, hp_spill *sp, hp_error *err)
{
    uint32_t n = g->obj.n;
    memset(d, 0, sizeof *d);
    d->n = n;
    /* The DFS tree's parents become the immediate dominators in place. */
    d->idom = hp_big_malloc(((size_t)n + 1) * sizeof *d->idom);
    d->reachable = calloc((size_t)n / 8 + 1, 1);
    hp_dom_work w = {0};
    int rc = d->idom && d->reachable ? prepare(d, g, sp, &w) : -1;
    if (rc == 0) rc = hp_semi_nca(&w, d->idom, n);
    hp_dom_work_free(&w);
    /* Allocated last: the semidominator pass has freed its arrays by now. */
    if (rc == 0 && !(d->retained = hp_big_malloc(((size_t)n + 1) * sizeof *d->retained))) rc = -1;
    if (rc == 0) rc = sum_retained(d, g, sp);
    if (rc == 0 && (hp_spill_put(sp, HP_SEC_IDOM, &d->idom, ((size_t)n + 1) * 4) != 0 ||
                    hp_spill_put(sp, HP_SEC_RETAINED, &d->retained, ((size_t)n + 1) * 8) != 0 ||
                    hp_spill_put(sp, HP_SEC_REACHABLE, &d->reachable, (size_t)n / 8 + 1) != 0))
        rc = -1;
    if (rc != 0) {
        hp_domtree_free(d);
        return hp_fail(err, 0, "out of memory computing dominators");
    }
    return 0;
}

void hp_domtree_free(hp_domtree *d)
{
    if (d->borrowed) {
        memset(d, 0, sizeof *d);
        return;
    }
    free(d->pre);
    free(d->vertex);
    free(d->idom);
    free(d->retained);
    free(d->reachable);
    memset(d, 0, sizeof *d);
}

int hp_domkids_build(hp_domkids *k, const hp_domtree *d, hp_error *err)
{
    k->start = hp_big_calloc(((size_t)d->n + 3) * sizeof *k->start);
    k->child = hp_big_malloc(((size_t)d->n + 1) * sizeof *k->child);
    if (!k->start || !k->child) {
        hp_domkids_free(k);
        return hp_fail(err, 0, "out of memory");
    }
    for (uint32_t w = 1; w <= d->n; w++)
        k->start[d->idom[w] + 2]++;
    for (uint32_t i = 2; i <= d->n + 2; i++)
        k->start[i] += k->start[i - 1];
    for (uint32_t w = 1; w <= d->n; w++)
        k->child[k->start[d->idom[w] + 1]++] = w;
    return 0;
}

void hp_domkids_free(hp_domkids *k)
{
    free(k->start);
    free(k->child);
    k->start = k->child = NULL;
}
