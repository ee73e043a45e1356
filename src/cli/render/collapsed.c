/*
 * Folded stacks ("root;...;leaf count"), the input of flamegraph.pl and
 * speedscope: one line per distinct path of function names with a non-zero
 * self value, so the counts add up to the profile's total.
 */
#include <stdlib.h>

#include "render/render.h"
#include "render/tree.h"

/* ';' separates frames and '\n' lines: such bytes in names become '?'. */
static void put_name(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' || (unsigned char)*s < 0x20 ? '?' : *s, out);
}

static void put_line(FILE *out, const hp_tree *t, const uint32_t *path, uint32_t n, uint64_t v)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputc(';', out);
        put_name(out, hp_tree_name(t, path[i]));
    }
    fprintf(out, " %llu\n", (unsigned long long)v);
}

int hp_render_collapsed(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err)
{
    hp_tree t;
    if (hp_tree_init(&t, 0) || hp_tree_add(&t, p, o->value, 0, o->threads)) {
        hp_tree_free(&t);
        return hp_fail(err, 0, "out of memory");
    }
    /* Depth-first, children before siblings; path[] holds the nodes from the root. */
    uint32_t *path = malloc(t.count * sizeof *path), n = 0, node = t.nodes[0].child;
    if (!path) {
        hp_tree_free(&t);
        return hp_fail(err, 0, "out of memory");
    }
    while (node != UINT32_MAX) {
        path[n++] = node;
        const hp_tnode *x = &t.nodes[node];
        if (x->self[0]) put_line(out, &t, path, n, x->self[0]);
        if (x->child != UINT32_MAX) {
            node = x->child;
            continue;
        }
        /* climb until a node has a next sibling */
        while (n > 0 && t.nodes[path[n - 1]].sibling == UINT32_MAX)
            n--;
        node = n > 0 ? t.nodes[path[--n]].sibling : UINT32_MAX;
    }
    free(path);
    hp_tree_free(&t);
    return 0;
}
