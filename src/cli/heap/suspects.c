#include "cli/heap/suspects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/lookup.h"

enum { RELEASE_EVERY = 1 << 20 }; /* vertices between drops of mapped pages */

typedef struct {
    hp_suspect *v;
    size_t n, cap;
} list;

static int push(list *l, hp_suspect s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        hp_suspect *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

static uint64_t class_key(const hp_heap *h, uint32_t obj);

/* Follows the largest child while it holds 80% of its parent and is of another class. */
static uint32_t accumulation_point(const hp_heap *h, const hp_domkids *k, uint32_t w)
{
    const hp_domtree *d = &h->d;
    for (;;) {
        uint32_t best = 0;
        for (uint32_t i = k->start[w]; i < k->start[w + 1]; i++)
            if (!best || d->retained[k->child[i]] > d->retained[best]) best = k->child[i];
        if (!best || d->retained[best] * 5 < d->retained[w] * 4 ||
            class_key(h, d->vertex[best]) == class_key(h, d->vertex[w]))
            return d->vertex[w];
        w = best;
    }
}

/* Descends from the root while memory splits among several vertices over t. */
static int object_suspects(const hp_heap *h, const hp_domkids *k, uint64_t t, list *out)
{
    const hp_domtree *d = &h->d;
    uint32_t *stack = malloc(((size_t)d->n + 1) * sizeof *stack);
    size_t top = 0;
    if (!stack) return -1;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t w = stack[--top], big = 0;
        for (uint32_t i = k->start[w]; i < k->start[w + 1]; i++) {
            uint32_t c = k->child[i];
            big += d->retained[c] >= t && hp_dom_reachable(d, d->vertex[c]);
        }
        if (w != 0 && big < 2) {
            hp_suspect s = {d->vertex[w], accumulation_point(h, k, w), NULL, d->retained[w]};
            if (push(out, s) != 0) {
                free(stack);
                return -1;
            }
            continue;
        }
        for (uint32_t i = k->start[w]; i < k->start[w + 1]; i++) {
            uint32_t c = k->child[i]; /* disjoint subtrees over t: at most 10 per level */
            if (d->retained[c] >= t && hp_dom_reachable(d, d->vertex[c])) stack[top++] = c;
        }
    }
    free(stack);
    return 0;
}

static uint64_t class_key(const hp_heap *h, uint32_t obj)
{
    uint32_t c = h->g.classof[obj], at = HP_CLASSOF_INDEX(c);
    if (HP_CLASSOF_KIND(c) == HP_CLASSOF_CLASS) return 0;
    if (HP_CLASSOF_KIND(c) == HP_CLASSOF_PRIM_ARRAY) return HP_PRIM_KEY | at;
    if (at < h->g.classes.n) return h->g.classes.v[at].id;
    hp_sub s; /* no CLASS DUMP: the ID is in the sub-record */
    hp_graph_object(&h->g, obj, &s);
    return s.ref;
}

/* Classes retaining at least t together whose largest instance retains less
 * than t; vertex_rows as hp_histo_from_graph() gives them. */
static int class_suspects(const hp_heap *h, const hp_histo *histo, const uint32_t *vertex_rows,
                          uint64_t t, list *out)
{
    const hp_domtree *d = &h->d;
    uint32_t *largest = calloc(histo->nrows + 1, sizeof *largest); /* row -> vertex */
    int rc = largest ? 0 : -1;
    for (uint32_t v = 1; v <= d->n && rc == 0; v++) {
        uint32_t row = vertex_rows[v];
        if (row && histo->rows[row - 1].retained >= t &&
            (!largest[row] || d->retained[v] > d->retained[largest[row]]))
            largest[row] = v;
        if (v % RELEASE_EVERY == 0)
            hp_heap_release(h, d->retained + v - RELEASE_EVERY, RELEASE_EVERY * 8);
    }
    for (size_t i = 0; i < histo->nrows && rc == 0; i++) {
        uint32_t v = largest[i + 1];
        if (v && d->retained[v] < t)
            rc = push(out, (hp_suspect){d->vertex[v], HP_NO_OBJECT, &histo->rows[i],
                                        histo->rows[i].retained});
    }
    free(largest);
    return rc;
}

static int by_retained(const void *a, const void *b)
{
    const hp_suspect *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    return x->object < y->object ? -1 : x->object > y->object;
}

int hp_suspects_find(const hp_heap *h, const hp_domkids *k, const hp_histo *histo,
                     const uint32_t *vertex_rows, hp_suspect **out, size_t *n, hp_error *err)
{
    list l = {0};
    uint64_t t = h->d.retained[0] / 10 + 1;
    if (object_suspects(h, k, t, &l) != 0 || class_suspects(h, histo, vertex_rows, t, &l) != 0) {
        free(l.v);
        return hp_fail(err, 0, "out of memory");
    }
    if (l.n) qsort(l.v, l.n, sizeof *l.v, by_retained);
    *out = l.v;
    *n = l.n;
    return 0;
}

static int by_group(const void *a, const void *b)
{
    const hp_accumulated *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    return x->key < y->key ? -1 : x->key > y->key;
}

int hp_suspect_accumulates(const hp_heap *h, uint32_t obj, hp_accumulated **out, size_t *n,
                           hp_error *err)
{
    uint32_t *kids;
    size_t nkids;
    if (hp_heap_children(h, h->d.pre[obj], &kids, &nkids) != 0)
        return hp_fail(err, 0, "out of memory");
    hp_idmap at = {0}; /* class key -> group + 1 */
    hp_accumulated *v = malloc((nkids + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < nkids; i++) {
        uint32_t c = kids[i];
        uint64_t key = class_key(h, h->d.vertex[c]);
        const uint64_t *g = hp_idmap_get(&at, key);
        if (!g) {
            v[*n] = (hp_accumulated){key, 0, 0};
            if (hp_idmap_put(&at, key, ++*n) < 0) break;
            g = hp_idmap_get(&at, key);
        }
        v[*g - 1].count++;
        v[*g - 1].retained += h->d.retained[c];
    }
    int ok = v && at.len == *n;
    hp_idmap_free(&at);
    free(kids);
    if (!ok) {
        free(v);
        return hp_fail(err, 0, "out of memory");
    }
    if (*n) qsort(v, *n, sizeof *v, by_group);
    *out = v;
    return 0;
}

void hp_accumulated_name(const hp_heap *h, uint64_t key, char *buf, size_t cap)
{
    if (key & HP_PRIM_KEY)
        snprintf(buf, cap, "%s[]", hp_type_name((uint8_t)key));
    else if (key == 0)
        snprintf(buf, cap, "java.lang.Class");
    else
        hp_index_class_name(&h->ix, key, buf, cap);
}
