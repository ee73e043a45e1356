/*
 * `hprof flame`: one self-contained HTML page. The call trees (normal and
 * inverted) are written as numbers inside a script; every name, the title
 * and the source file name are HTML-escaped text in the page, never markup
 * or script. Frames narrower than --minwidth percent of the total are left
 * out (their value stays in their parent), which bounds the page's size.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/render/flame_assets.h"
#include "cli/render/fold.h"
#include "cli/render/render.h"

/* Text as HTML character data or attribute value; control characters become '?'. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc((unsigned char)*s < 0x20 ? '?' : *s, out);
        }
    }
}

typedef struct {
    FILE *out;
    hp_profile names; /* names in the order the page lists them */
    uint64_t min_total;
    int diff;
} emitter;

/* One view of the folded stacks. A node of the call tree is a run of
 * `order` whose stacks share their path up to the node; its children are
 * found by sorting the run on the next frame, so stacks under frames too
 * narrow to draw are never sorted deeper. */
typedef struct {
    const hp_folded *f;
    const uint32_t *paths; /* per stack at its `first`: frames in path order */
    uint32_t *reversed;    /* the normal view's root-first copy of the stacks */
    uint32_t *order;
    uint64_t *keys; /* scratch: (next frame + 1) << 32 | stack */
} view;

typedef struct {
    uint32_t lo, hi, depth, frame; /* frame: UINT32_MAX for the root */
    uint64_t total[2];
} run;

static int view_init(view *v, const hp_folded *f, int inverted)
{
    const hp_profile *p = &f->p;
    uint32_t n = p->nstacks;
    *v = (view){.f = f, .paths = p->stack_frames};
    if (!inverted) { /* stacks are stored leaf first */
        v->reversed = malloc((p->nstack_frames + 1) * sizeof *v->reversed);
        if (!v->reversed) return -1;
        for (uint32_t s = 0; s < n; s++)
            for (uint32_t i = 0; i < p->stacks[s].depth; i++)
                v->reversed[p->stacks[s].first + i] =
                    p->stack_frames[p->stacks[s].first + p->stacks[s].depth - 1 - i];
        v->paths = v->reversed;
    }
    v->order = malloc((n + 1) * sizeof *v->order);
    v->keys = malloc((n + 1) * sizeof *v->keys);
    if (!v->order || !v->keys) return -1;
    for (uint32_t i = 0; i < n; i++)
        v->order[i] = i;
    return 0;
}

static void view_free(view *v)
{
    free(v->reversed);
    free(v->order);
    free(v->keys);
}

typedef struct {
    run *v;
    size_t n, cap;
} runs;

static int push(runs *r, run x)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        run *v = realloc(r->v, cap * sizeof *v);
        if (!v) return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = x;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the node's run on frame depth+1 (stacks ending here first) and lists
 * the children wide enough to draw in kids. */
static int children(const emitter *e, view *v, const run *node, runs *kids)
{
    const hp_profile *p = &v->f->p;
    uint32_t d = node->depth; /* 0-based index of the next frame */
    uint64_t *k = v->keys;
    for (uint32_t i = node->lo; i < node->hi; i++) {
        const hp_pstack *st = &p->stacks[v->order[i]];
        uint64_t next = d < st->depth ? (uint64_t)v->paths[st->first + d] + 1 : 0;
        k[i] = next << 32 | v->order[i];
    }
    qsort(k + node->lo, node->hi - node->lo, sizeof *k, by_key);
    kids->n = 0;
    for (uint32_t i = node->lo; i < node->hi;) {
        uint64_t key = k[i] >> 32;
        run child = {i, i, d + 1, (uint32_t)(key - 1), {0, 0}};
        for (; child.hi < node->hi && k[child.hi] >> 32 == key; child.hi++) {
            uint32_t s = (uint32_t)k[child.hi];
            v->order[child.hi] = s;
            child.total[0] += p->stacks[s].v[0];
            child.total[1] += p->stacks[s].v[1];
        }
        i = child.hi;
        if (key && child.total[0] && child.total[0] >= e->min_total && push(kids, child)) return -1;
    }
    return 0;
}

static int emit_node(emitter *e, const view *v, const run *x, size_t nkids)
{
    const hp_profile *p = &v->f->p;
    const char *name = x->frame == UINT32_MAX ? "all" : hp_profile_str(p, p->frames[x->frame].func);
    uint32_t id = hp_profile_string(&e->names, name, strlen(name));
    if (id == UINT32_MAX) return -1;
    fprintf(e->out, "%u,%u,%d,%llu,%zu,", id,
            x->frame == UINT32_MAX ? (unsigned)HP_FK_SUMMARY : p->frames[x->frame].kind,
            x->frame == UINT32_MAX ? 0 : v->f->line[x->frame], (unsigned long long)x->total[0],
            nkids);
    if (e->diff) fprintf(e->out, "%llu,", (unsigned long long)x->total[1]);
    return 0;
}

/* Preorder "name,kind,line,value,children[,base]," per node, iteratively
 * (hostile files can have traces far deeper than the C stack). */
static int emit_tree(emitter *e, view *v)
{
    runs todo = {0}, kids = {0};
    const hp_profile *p = &v->f->p;
    run root = {0, p->nstacks, 0, UINT32_MAX, {p->total[0], p->total[1]}};
    int rc = push(&todo, root);
    fputc('[', e->out);
    while (rc == 0 && todo.n > 0) {
        run x = todo.v[--todo.n];
        rc = children(e, v, &x, &kids);
        if (rc == 0) rc = emit_node(e, v, &x, kids.n);
        for (size_t i = kids.n; rc == 0 && i-- > 0;)
            rc = push(&todo, kids.v[i]);
    }
    fputs("0]", e->out);
    free(todo.v);
    free(kids.v);
    return rc;
}

static void put_names(emitter *e)
{
    for (uint32_t i = 0; i < e->names.nstrings; i++) {
        if (i) fputc('\n', e->out);
        put_escaped(e->out, hp_profile_str(&e->names, i));
    }
}

/* The header: title, what is drawn, and the controls (all text escaped). */
static void put_header(FILE *out, const hp_profile *p, const hp_render_opts *o)
{
    const hp_pvalue *values;
    hp_pkind_values(p->kind, &values);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
    put_escaped(out, o->title);
    fprintf(out, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", hp_flame_css);
    put_escaped(out, o->title);
    fputs("</h1>\n<p id=\"what\"><span id=\"kind\">", out);
    put_escaped(out, hp_pkind_name(p->kind));
    fputs("</span>, <span id=\"value\">", out);
    put_escaped(out, values[o->value].name);
    fputs("</span> (<span id=\"unit\">", out);
    put_escaped(out, values[o->value].unit);
    fputs("</span>) of <span id=\"source\">", out);
    put_escaped(out, o->source);
    fputs("</span></p>\n", out);
    if (o->baseline) {
        fputs("<p id=\"diff\">differential: widths from this profile; red frames grew and blue "
              "ones shrank, as shares of each total, compared with <span id=\"baseline\">",
              out);
        put_escaped(out, o->baseline);
        fputs("</span></p>\n", out);
    }
    fprintf(out, "%s</header>\n", hp_flame_controls);
}

/* views[0] normal, views[1] inverted; for a diff, channel 1 holds the baseline. */
static int page(FILE *out, view views[2], const hp_profile *p, const hp_render_opts *o, int diff)
{
    emitter e = {.out = out, .diff = diff};
    hp_profile_init(&e.names, HP_PK_SAMPLES, HP_PFMT_ASCII);
    e.min_total = (uint64_t)((long double)views[0].f->p.total[0] * o->minwidth / 100.0L);
    put_header(out, p, o);
    fprintf(out, "<script>var HPROF_DATA={\"diff\":%d,\"trees\":[", diff);
    int rc = emit_tree(&e, &views[0]);
    fputc(',', out);
    if (rc == 0) rc = emit_tree(&e, &views[1]);
    /* HTML drops the newline right after <pre>: the one written here, not a name's */
    fputs("]};</script>\n<pre id=\"names\" hidden>\n", out);
    put_names(&e);
    fprintf(out, "</pre>\n<script>\n%s</script>\n</body></html>\n", hp_flame_js);
    hp_profile_free(&e.names);
    return rc;
}

/* b folded into channel 0 and, for a diff, a into channel 1; then both views. */
static int render(FILE *out, const hp_profile *a, const hp_profile *b, const hp_render_opts *o,
                  hp_error *err)
{
    hp_folded f;
    view views[2] = {0};
    if (o->value < 0 || o->value >= b->nvalues || (a && a->kind != b->kind))
        return hp_fail(err, 0, "no such value in this profile");
    hp_fold_init(&f, b->kind);
    int rc = hp_fold_add(&f, b, o->value, 0, o->threads);
    if (rc == 0 && a) rc = hp_fold_add(&f, a, o->value, 1, o->threads);
    for (int i = 0; i < 2 && rc == 0; i++)
        rc = view_init(&views[i], &f, i);
    if (rc == 0) rc = page(out, views, b, o, a != NULL);
    for (int i = 0; i < 2; i++)
        view_free(&views[i]);
    hp_fold_free(&f);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}

int hp_render_flame(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err)
{
    return render(out, NULL, p, o, err);
}

int hp_render_flame_diff(FILE *out, const hp_profile *a, const hp_profile *b,
                         const hp_render_opts *o, hp_error *err)
{
    return render(out, a, b, o, err);
}
