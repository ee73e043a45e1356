/* `hprof dominators`: the dominator tree, largest retained sizes first. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/heap/heap.h"

/* A printed vertex and its printed children (nodes[first .. first + count)). */
typedef struct {
    uint32_t w, first, count;
} node;

typedef struct {
    const hp_heap *h;
    const hp_opts *o;
    FILE *out;
    node *nodes;
    size_t n, cap;
} tree_ctx;

/* Larger retained first, then smaller preorder number (the output order). */
static int better(const hp_domtree *d, uint32_t a, uint32_t b)
{
    return d->retained[a] != d->retained[b] ? d->retained[a] > d->retained[b] : a < b;
}

/* A parent's best children so far: a heap with the worst on top once full. */
typedef struct {
    uint32_t *v;
    size_t n, cap;
} kid_heap;

static void sift_down(const hp_domtree *d, kid_heap *k, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= k->n) return;
        if (c + 1 < k->n && better(d, k->v[c], k->v[c + 1])) c++;
        if (!better(d, k->v[i], k->v[c])) return;
        uint32_t t = k->v[i];
        k->v[i] = k->v[c];
        k->v[c] = t;
        i = c;
    }
}

static int offer(const hp_domtree *d, kid_heap *k, size_t limit, uint32_t w)
{
    if (k->n == limit) {
        if (!better(d, w, k->v[0]) || !hp_dom_reachable(d, d->vertex[w])) return 0;
        k->v[0] = w;
        sift_down(d, k, 0);
        return 0;
    }
    if (!hp_dom_reachable(d, d->vertex[w])) return 0;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        uint32_t *v = realloc(k->v, cap * sizeof *v);
        if (!v) return -1;
        k->v = v;
        k->cap = cap;
    }
    size_t i = k->n++;
    k->v[i] = w;
    while (i > 0 && better(d, k->v[(i - 1) / 2], k->v[i])) { /* sift up: worst on top */
        uint32_t t = k->v[i];
        k->v[i] = k->v[(i - 1) / 2];
        k->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static const hp_domtree *sort_tree;

static int by_retained(const void *a, const void *b)
{
    return better(sort_tree, *(const uint32_t *)a, *(const uint32_t *)b) ? -1 : 1;
}

static int by_vertex(const void *a, const void *b)
{
    uint32_t x = ((const node *)a)->w, y = ((const node *)b)->w;
    return x < y ? -1 : x > y;
}

/* Children of nodes[lo .. hi) (sorted by vertex), found in one pass over the
 * tree's idom array, whose mapped pages are released as it goes. */
static int scan_children(const hp_domtree *d, const tree_ctx *c, node *parents, size_t np,
                         kid_heap *heaps)
{
    enum { STEP = 1 << 20 };
    size_t limit = hp_top(c->o, 20);
    for (uint32_t at = 1; at <= d->n; at += STEP) {
        uint32_t end = d->n - at < STEP ? d->n + 1 : at + STEP;
        for (uint32_t w = at; w < end; w++) {
            node key = {d->idom[w], 0, 0};
            node *p = bsearch(&key, parents, np, sizeof *parents, by_vertex);
            if (p && offer(d, &heaps[p - parents], limit, w) != 0) return -1;
        }
        hp_heap_release(c->h, d->idom + at, (size_t)(end - at) * 4);
        hp_heap_release(c->h, d->retained + at, (size_t)(end - at) * 8);
    }
    return 0;
}

/* Appends the printed children of nodes[lo .. hi) to the tree. */
static int expand_level(tree_ctx *c, size_t lo, size_t hi)
{
    const hp_domtree *d = &c->h->d;
    size_t np = hi - lo;
    node *parents = malloc((np + 1) * sizeof *parents);
    kid_heap *heaps = calloc(np + 1, sizeof *heaps);
    int rc = parents && heaps ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < np; i++)
        parents[i] = (node){c->nodes[lo + i].w, (uint32_t)(lo + i), 0};
    if (rc == 0) qsort(parents, np, sizeof *parents, by_vertex);
    if (rc == 0) rc = scan_children(d, c, parents, np, heaps);
    for (size_t i = 0; rc == 0 && i < np; i++) {
        kid_heap *k = &heaps[i];
        node *p = &c->nodes[parents[i].first];
        sort_tree = d;
        if (k->n) qsort(k->v, k->n, sizeof *k->v, by_retained);
        if (c->n + k->n > c->cap) {
            size_t cap = (c->n + k->n) * 2;
            node *v = realloc(c->nodes, cap * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            c->nodes = v;
            c->cap = cap;
            p = &c->nodes[parents[i].first];
        }
        p->first = (uint32_t)c->n;
        p->count = (uint32_t)k->n;
        for (size_t j = 0; j < k->n; j++)
            c->nodes[c->n++] = (node){k->v[j], 0, 0};
    }
    for (size_t i = 0; heaps && i < np; i++)
        free(heaps[i].v);
    free(heaps);
    free(parents);
    return rc;
}

static void print_node(const tree_ctx *c, uint32_t w, int level)
{
    const hp_domtree *d = &c->h->d;
    uint32_t obj = d->vertex[w];
    char name[512];
    hp_graph_class_name(&c->h->g, obj, name, sizeof name);
    uint64_t id = hp_objects_id(&c->h->g.obj, obj), shallow = hp_graph_shallow(&c->h->g, obj);
    if (c->o->json) {
        fprintf(c->out, "{\"id\":\"0x%" PRIx64 "\",\"class\":", id);
        hp_json_string(c->out, name);
        fprintf(c->out, ",\"shallow\":%" PRIu64 ",\"retained\":%" PRIu64, shallow, d->retained[w]);
    } else {
        fprintf(c->out, "%14" PRIu64 " %12" PRIu64 "  %*s0x%016" PRIx64 "  %s\n", d->retained[w],
                shallow, 2 * level, "", id, name);
    }
}

/* Depth is bounded by --depth (at most 64), so recursion stays shallow. */
static void print_level(const tree_ctx *c, const node *p, int level)
{
    if (c->o->json) fputc('[', c->out);
    for (uint32_t i = 0; i < p->count; i++) {
        const node *k = &c->nodes[p->first + i];
        if (c->o->json && i) fputc(',', c->out);
        print_node(c, k->w, level);
        if (c->o->json) fprintf(c->out, ",\"children\":");
        if (level + 1 < c->o->depth)
            print_level(c, k, level + 1);
        else if (c->o->json)
            fputs("[]", c->out);
        if (c->o->json) fputc('}', c->out);
    }
    if (c->o->json) fputc(']', c->out);
}

/* The printed part of the tree, level by level from the virtual root. */
static int build_tree(tree_ctx *c)
{
    size_t lo = 0;
    if (!(c->nodes = malloc(16 * sizeof *c->nodes))) return -1;
    c->cap = 16;
    c->nodes[c->n++] = (node){0, 0, 0};
    for (long level = 0; level < c->o->depth && lo < c->n; level++) {
        size_t hi = c->n;
        if (expand_level(c, lo, hi) != 0) return -1;
        lo = hi;
    }
    return 0;
}

int hp_cmd_dominators(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap h;
    int rc = hp_heap_open(&h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    hp_opts eff = *o;
    if (!eff.depth) eff.depth = 1;
    tree_ctx c = {&h, &eff, out, NULL, 0, 0};
    if (build_tree(&c) != 0) {
        fprintf(err, "hprof: error: %s: out of memory\n", f->path);
        rc = HP_EXIT_MALFORMED;
    } else {
        if (o->json)
            fprintf(out, "{\"objects\":%" PRIu32 ",\"reachable_bytes\":%" PRIu64 ",\"dominators\":",
                    h.g.obj.n, h.d.retained[0]);
        else
            fprintf(out,
                    "Dominator tree of heap dump %zu: %" PRIu32 " objects, %" PRIu64
                    " bytes reachable\n      retained      shallow  id                  class\n",
                    h.dump + 1, h.g.obj.n, h.d.retained[0]);
        print_level(&c, &c.nodes[0], 0);
        if (o->json) fputs("}\n", out);
    }
    free(c.nodes);
    hp_heap_close(&h);
    return rc;
}
