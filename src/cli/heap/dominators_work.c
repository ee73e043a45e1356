#include "cli/heap/dominators_work.h"

#include "cli/heap/bigarray.h"

#include <stdlib.h>
#include <string.h>

static int multi(const hp_dom_work *w, uint32_t v)
{
    return w->multi[v >> 6] >> (v & 63) & 1;
}

static uint32_t rank_of(const hp_dom_work *w, uint32_t v)
{
    uint64_t below = w->multi[v >> 6] & ((1ull << (v & 63)) - 1);
    return w->rank[v >> 6] + (uint32_t)__builtin_popcountll(below);
}

/* Marks the objects with two or more incoming edges (not children of the
 * virtual root) and ranks them. */
static int classify(hp_dom_work *w, const hp_graph *g)
{
    uint32_t n = g->obj.n;
    size_t words = (size_t)n / 64 + 1;
    uint8_t *once = calloc((size_t)n / 8 + 1, 1), *twice = calloc((size_t)n / 8 + 1, 1);
    w->multi = calloc(words, 8);
    w->rank = malloc(words * 4);
    int rc = once && twice && w->multi && w->rank ? 0 : -1;
    for (uint32_t e = 0; rc == 0 && e < g->nedges; e++) {
        uint32_t t = HP_EDGE_TARGET(g->out[e]);
        uint8_t *b = hp_bit(once, t) ? twice : once;
        b[t >> 3] |= (uint8_t)(1u << (t & 7));
    }
    for (uint32_t v = 0; rc == 0 && v < n; v++)
        if (hp_bit(twice, v) && !hp_bit(w->top, v)) w->multi[v >> 6] |= 1ull << (v & 63);
    for (size_t i = 0; rc == 0 && i < words; i++) {
        w->rank[i] = w->m;
        w->m += (uint32_t)__builtin_popcountll(w->multi[i]);
    }
    free(once);
    free(twice);
    return rc;
}

int hp_dom_work_init(hp_dom_work *w, const hp_graph *g, uint8_t *top)
{
    memset(w, 0, sizeof *w);
    w->top = top;
    if (classify(w, g) != 0 || !(w->pstart = calloc((size_t)w->m + 2, 4))) return -1;
    for (uint32_t e = 0; e < g->nedges; e++) {
        uint32_t t = HP_EDGE_TARGET(g->out[e]);
        if (multi(w, t)) w->pstart[rank_of(w, t) + 2]++;
    }
    for (uint32_t i = 2; i <= w->m + 1; i++)
        w->pstart[i] += w->pstart[i - 1];
    if (!(w->psrc = hp_big_malloc(((size_t)w->pstart[w->m + 1] + 1) * 4))) return -1;
    for (uint32_t v = 0; v < g->obj.n; v++)
        for (uint32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            uint32_t t = HP_EDGE_TARGET(g->out[e]);
            if (multi(w, t)) w->psrc[w->pstart[rank_of(w, t) + 1]++] = v;
        }
    return 0;
}

/* Bitmaps, ranks and lists renumbered from objects to preorder numbers. */
int hp_dom_work_to_preorder(hp_dom_work *w, const uint32_t *pre, uint32_t n)
{
    hp_dom_work p = {.m = w->m};
    size_t words = (size_t)n / 64 + 1;
    p.top = calloc((size_t)n / 8 + 1, 1);
    p.multi = calloc(words, 8);
    p.rank = malloc(words * 4);
    p.pstart = calloc((size_t)w->m + 2, 4);
    p.psrc = hp_big_malloc(((size_t)w->pstart[w->m] + 1) * 4);
    if (!p.top || !p.multi || !p.rank || !p.pstart || !p.psrc) {
        hp_dom_work_free(&p);
        return -1;
    }
    for (uint32_t v = 0; v < n; v++) {
        uint32_t k = pre[v];
        if (hp_bit(w->top, v)) p.top[k >> 3] |= (uint8_t)(1u << (k & 7));
        if (multi(w, v)) p.multi[k >> 6] |= 1ull << (k & 63);
    }
    for (size_t i = 0, m = 0; i < words; i++) {
        p.rank[i] = (uint32_t)m;
        m += (size_t)__builtin_popcountll(p.multi[i]);
    }
    for (uint32_t v = 0; v < n; v++)
        if (multi(w, v)) {
            uint32_t r = rank_of(w, v);
            p.pstart[rank_of(&p, pre[v]) + 1] = w->pstart[r + 1] - w->pstart[r];
        }
    for (uint32_t i = 1; i <= w->m; i++)
        p.pstart[i] += p.pstart[i - 1];
    for (uint32_t v = 0; v < n; v++)
        if (multi(w, v)) {
            uint32_t r = rank_of(w, v), at = p.pstart[rank_of(&p, pre[v])];
            for (uint32_t e = w->pstart[r]; e < w->pstart[r + 1]; e++)
                p.psrc[at++] = pre[w->psrc[e]];
        }
    hp_dom_work_free(w);
    *w = p;
    return 0;
}

void hp_dom_work_free(hp_dom_work *w)
{
    free(w->top);
    free(w->multi);
    free(w->rank);
    free(w->pstart);
    free(w->psrc);
    memset(w, 0, sizeof *w);
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

/* Semidominators in reverse preorder; a single-predecessor vertex's is its parent. */
static int semidominators(const hp_dom_work *w, const uint32_t *parent, uint32_t n, uint32_t *semi,
                          uint32_t *anc, uint32_t *label)
{
    path_stack stack = {0};
    int rc = 0;
    for (uint32_t v = n; v >= 1 && rc == 0; v--) {
        uint32_t s = parent[v];
        if (hp_bit(w->top, v)) {
            s = 0;
        } else if (multi(w, v)) {
            uint32_t r = rank_of(w, v);
            s = v;
            for (uint32_t e = w->pstart[r]; e < w->pstart[r + 1]; e++) {
                uint32_t c = eval(w->psrc[e], v, anc, label, &stack);
                if (c == UINT32_MAX) rc = -1;
                if (c < s) s = c;
            }
            semi[r] = s;
        }
        label[v] = s;
        anc[v] = parent[v];
    }
    free(stack.v);
    return rc;
}

int hp_semi_nca(const hp_dom_work *w, uint32_t *parent, uint32_t n)
{
    uint32_t *semi = malloc(((size_t)w->m + 1) * sizeof *semi);
    uint32_t *anc = hp_big_malloc(((size_t)n + 1) * sizeof *anc);
    uint32_t *label = hp_big_malloc(((size_t)n + 1) * sizeof *label);
    int rc = semi && anc && label ? semidominators(w, parent, n, semi, anc, label) : -1;
    free(anc);
    free(label);
    /* Each parent becomes the idom, smaller ones first: walk up to the semidominator. */
    parent[0] = 0;
    for (uint32_t v = 1; v <= n && rc == 0; v++) {
        if (hp_bit(w->top, v)) {
            parent[v] = 0;
        } else if (multi(w, v)) {
            uint32_t i = parent[v], s = semi[rank_of(w, v)];
            while (i > s)
                i = parent[i];
            parent[v] = i;
        }
    }
    free(semi);
    return rc;
}
