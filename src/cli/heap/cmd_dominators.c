/* `hprof dominators`: the dominator tree, largest retained sizes first. */
#include <inttypes.h>
#include <stdlib.h>

#include "heap/heap.h"

typedef struct {
    const hp_heap *h;
    const hp_domkids *kids;
    const hp_opts *o;
    FILE *out;
} tree_ctx;

static const hp_domtree *sort_tree;

static int by_retained(const void *a, const void *b)
{
    uint64_t x = sort_tree->retained[*(const uint32_t *)a];
    uint64_t y = sort_tree->retained[*(const uint32_t *)b];
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The reachable children of vertex w, largest first, at most `top`; caller frees. */
static uint32_t *top_children(const tree_ctx *c, uint32_t w, size_t *n)
{
    const hp_domtree *d = &c->h->d;
    uint32_t first = c->kids->start[w], end = c->kids->start[w + 1];
    uint32_t *v = malloc(((size_t)(end - first) + 1) * sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (uint32_t i = first; i < end; i++)
        if (hp_dom_reachable(d, d->vertex[c->kids->child[i]])) v[(*n)++] = c->kids->child[i];
    sort_tree = d;
    qsort(v, *n, sizeof *v, by_retained);
    if (*n > hp_top(c->o, 20)) *n = hp_top(c->o, 20);
    return v;
}

static void print_node(const tree_ctx *c, uint32_t w, int level)
{
    const hp_domtree *d = &c->h->d;
    uint32_t obj = d->vertex[w];
    char name[512];
    hp_graph_class_name(&c->h->g, obj, name, sizeof name);
    uint64_t id = c->h->g.obj.ids[obj], shallow = hp_graph_shallow(&c->h->g, obj);
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
static int print_level(const tree_ctx *c, uint32_t w, int level)
{
    size_t n;
    uint32_t *v = top_children(c, w, &n);
    if (!v) return -1;
    if (c->o->json) fputc('[', c->out);
    for (size_t i = 0; i < n; i++) {
        if (c->o->json && i) fputc(',', c->out);
        print_node(c, v[i], level);
        if (c->o->json) fprintf(c->out, ",\"children\":");
        if (level + 1 < c->o->depth) {
            if (print_level(c, v[i], level + 1) != 0) {
                free(v);
                return -1;
            }
        } else if (c->o->json) {
            fputs("[]", c->out);
        }
        if (c->o->json) fputc('}', c->out);
    }
    if (c->o->json) fputc(']', c->out);
    free(v);
    return 0;
}

int hp_cmd_dominators(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap h;
    hp_domkids kids = {0};
    hp_error e = {0};
    int rc = hp_heap_open(&h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    hp_opts eff = *o;
    if (!eff.depth) eff.depth = 1;
    tree_ctx c = {&h, &kids, &eff, out};
    if (hp_domkids_build(&kids, &h.d, &e) != 0) {
        hp_report(err, f, &e);
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
        if (print_level(&c, 0, 0) != 0) {
            fprintf(err, "hprof: error: %s: out of memory\n", f->path);
            rc = HP_EXIT_MALFORMED;
        }
        if (o->json) fputs("}\n", out);
    }
    hp_domkids_free(&kids);
    hp_heap_close(&h);
    return rc;
}
