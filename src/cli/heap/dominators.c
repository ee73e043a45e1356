#include "heap/dominators.h"

#include <stdlib.h>
#include <string.h>

static int bit(const uint8_t *b, uint32_t i)
{
    return b[i >> 3] >> (i & 7) & 1;
}
static void set_bit(uint8_t *b, uint32_t i)
{
    b[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Marks objects reachable from the GC roots without crossing weak edges (BFS). */
static int mark_reachable(hp_domtree *d, const hp_graph *g)
{
    uint32_t *queue = malloc(((size_t)g->obj.n + 1) * sizeof *queue), head = 0, tail = 0;
    if (!queue) return -1;
    for (size_t r = 0; r < g->nroots; r++)
        if (!bit(d->reachable, g->roots[r].object)) {
            set_bit(d->reachable, g->roots[r].object);
            queue[tail++] = g->roots[r].object;
        }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            uint32_t t = g->out[e];
            if ((t & HP_WEAK_EDGE) || bit(d->reachable, t)) continue;
            set_bit(d->reachable, t);
            queue[tail++] = t;
        }
    }
    free(queue);
    return 0;
}

typedef struct {
    uint32_t *v, *pos;
    size_t len, cap;
} dfs_stack;

static int visit(hp_domtree *d, dfs_stack *st, uint32_t *parent, uint32_t *next, uint32_t obj,
                 uint32_t from, const hp_graph *g)
{
    if (d->pre[obj]) return 0;
    if (st->len == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 1024;
        uint32_t *v = realloc(st->v, cap * sizeof *v);
        if (v) st->v = v;
        uint32_t *pos = v ? realloc(st->pos, cap * sizeof *pos) : NULL;
        if (!pos) return -1;
        st->pos = pos;
        st->cap = cap;
    }
    uint32_t k = ++*next;
    d->pre[obj] = k;
    d->vertex[k] = obj;
    parent[k] = from;
    st->v[st->len] = obj;
    st->pos[st->len++] = g->out_start[obj];
    return 0;
}

/* Depth-first preorder from the virtual root over all edges; parent[] gets the tree. */
static int number_dfs(hp_domtree *d, const hp_graph *g, uint32_t *parent, const uint8_t *top)
{
    dfs_stack st = {0};
    uint32_t next = 0;
    int rc = 0;
    /* The virtual root's children: GC roots in file order, then the unreachable. */
    for (size_t r = 0; r <= g->nroots + g->obj.n && rc == 0; r++) {
        uint32_t start = r < g->nroots ? g->roots[r].object : (uint32_t)(r - g->nroots - 1);
        if (r == g->nroots || (r > g->nroots && !bit(top, start))) continue;
        rc = visit(d, &st, parent, &next, start, 0, g);
        while (st.len > 0 && rc == 0) {
            uint32_t v = st.v[st.len - 1];
            if (st.pos[st.len - 1] == g->out_start[v + 1]) {
                st.len--;
                continue;
            }
            uint32_t t = HP_EDGE_TARGET(g->out[st.pos[st.len - 1]++]);
            rc = visit(d, &st, parent, &next, t, d->pre[v], g);
        }
    }
    free(st.v);
    free(st.pos);
    return rc;
}

typedef struct {
    uint32_t *v;
    size_t cap;
} path_stack;

/* Minimal label on the forest path from u, compressing it (vertices > w are linked).
 * Returns UINT32_MAX if the path stack cannot grow. */
static uint32_t eval(uint32_t u, uint32_t w, uint32_t *anc, uint32_t *label, path_stack *st)
{
    if (u <= w) return u;
    size_t top = 0;
    uint32_t x = u;
    while (anc[x] > w) {
        if (top == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 1024;
            uint32_t *v = realloc(st->v, cap * sizeof *v);
            if (!v) return UINT32_MAX;
            st->v = v;
            st->cap = cap;
        }
        st->v[top++] = x;
        x = anc[x];
    }
    uint32_t *stack = st->v;
    while (top > 0) {
        uint32_t y = stack[--top], a = anc[y];
        if (label[a] < label[y]) label[y] = label[a];
        anc[y] = anc[a];
    }
    return label[u];
}

/* Semidominators in reverse preorder, then idom by walking up to the semidominator. */
static int semi_nca(hp_domtree *d, const hp_graph *g, uint32_t *parent, const uint8_t *top)
{
    uint32_t n = g->obj.n, *pstart, *psrc;
    uint32_t *semi = malloc(((size_t)n + 1) * sizeof *semi);
    uint32_t *label = malloc(((size_t)n + 1) * sizeof *label);
    uint32_t *anc = malloc(((size_t)n + 1) * sizeof *anc);
    path_stack stack = {0};
    int rc = hp_graph_preds(g, &pstart, &psrc);
    if (!semi || !label || !anc) rc = -1;
    for (uint32_t w = n; w >= 1 && rc == 0; w--) {
        uint32_t obj = d->vertex[w], s = w;
        if (bit(top, obj)) s = 0; /* a child of the virtual root */
        for (uint32_t e = pstart[obj]; e < pstart[obj + 1] && s > 0; e++) {
            uint32_t c = eval(d->pre[psrc[e]], w, anc, label, &stack);
            if (c == UINT32_MAX) rc = -1;
            if (c < s) s = c;
        }
        semi[w] = label[w] = s;
        anc[w] = parent[w];
    }
    if (rc == 0) { /* parent is d->idom: each entry becomes the idom, smaller ones first */
        d->idom[0] = 0;
        for (uint32_t w = 1; w <= n; w++) {
            uint32_t i = parent[w];
            while (i > semi[w])
                i = d->idom[i];
            d->idom[w] = i;
        }
    }
    free(pstart);
    free(psrc);
    free(semi);
    free(label);
    free(anc);
    free(stack.v);
    return rc;
}

static void sum_retained(hp_domtree *d, const hp_graph *g)
{
    for (uint32_t w = 1; w <= g->obj.n; w++)
        d->retained[w] = hp_dom_reachable(d, d->vertex[w]) ? hp_graph_shallow(g, d->vertex[w]) : 0;
    d->retained[0] = 0;
    for (uint32_t w = g->obj.n; w >= 1; w--)
        d->retained[d->idom[w]] += d->retained[w];
}

int hp_dominators(hp_domtree *d, const hp_graph *g, hp_error *err)
{
    uint32_t n = g->obj.n;
    size_t bits = (size_t)n / 8 + 1;
    memset(d, 0, sizeof *d);
    d->n = n;
    d->pre = calloc((size_t)n + 1, sizeof *d->pre);
    d->vertex = calloc((size_t)n + 1, sizeof *d->vertex);
    /* The DFS tree's parents become the immediate dominators in place. */
    d->idom = malloc(((size_t)n + 1) * sizeof *d->idom);
    d->reachable = calloc(bits, 1);
    uint8_t *top = calloc(bits, 1); /* children of the virtual root */
    int rc = -1;
    if (d->pre && d->vertex && d->idom && d->reachable && top && mark_reachable(d, g) == 0) {
        for (size_t r = 0; r < g->nroots; r++)
            set_bit(top, g->roots[r].object);
        for (uint32_t i = 0; i < n; i++)
            if (!hp_dom_reachable(d, i)) set_bit(top, i);
        if (number_dfs(d, g, d->idom, top) == 0 && semi_nca(d, g, d->idom, top) == 0) rc = 0;
    }
    free(top);
    /* Allocated last: the semidominator pass has freed its arrays by now. */
    if (rc == 0 && !(d->retained = malloc(((size_t)n + 1) * sizeof *d->retained))) rc = -1;
    if (rc != 0) {
        hp_domtree_free(d);
        return hp_fail(err, 0, "out of memory computing dominators");
    }
    sum_retained(d, g);
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
    k->start = calloc((size_t)d->n + 3, sizeof *k->start);
    k->child = malloc(((size_t)d->n + 1) * sizeof *k->child);
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
