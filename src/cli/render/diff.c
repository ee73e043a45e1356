/*
 * `hprof diff A B` on two profiles of one kind: what changed, as shares of
 * each profile's own total (so profiles of different lengths compare), by
 * method (self and total) and by stack, sorted by the absolute change.
 * Rows whose shares are exactly equal are left out: a profile diffed with
 * itself prints nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/heap.h"
#include "cli/render/fold.h"
#include "cli/render/render.h"

typedef struct {
    uint32_t id; /* folded frame (methods) or stack (stacks) */
    uint64_t self[2], total[2];
    double change; /* the larger absolute change, for sorting */
} row;

typedef struct {
    const hp_folded *f;
    uint64_t total[2]; /* of A (channel 0) and B (channel 1) */
    row *methods, *stacks;
    size_t nmethods, nstacks;
} diff;

static double share(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* Exactly equal shares: v_a / total_a == v_b / total_b, in integers. */
static int same_share(const diff *d, const uint64_t v[2])
{
    return (unsigned __int128)v[0] * d->total[1] == (unsigned __int128)v[1] * d->total[0];
}

static double change(const diff *d, const uint64_t v[2])
{
    return share(v[1], d->total[1]) - share(v[0], d->total[0]);
}

static int by_change(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->change != y->change) return x->change < y->change ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Self (as the leaf) and total (anywhere in the stack, once per stack) per method. */
static int method_rows(diff *d)
{
    const hp_profile *p = &d->f->p;
    row *m = calloc(p->nframes + 1, sizeof *m);
    uint32_t *seen = calloc(p->nframes + 1, sizeof *seen);
    if (!m || !seen) {
        free(m);
        free(seen);
        return -1;
    }
    for (uint32_t s = 0; s < p->nstacks; s++) {
        const hp_pstack *st = &p->stacks[s];
        const uint32_t *fr = p->stack_frames + st->first;
        for (int c = 0; c < 2; c++)
            m[fr[0]].self[c] += st->v[c];
        for (uint32_t i = 0; i < st->depth; i++) {
            if (seen[fr[i]] == s + 1) continue; /* recursion: once per stack */
            seen[fr[i]] = s + 1;
            for (int c = 0; c < 2; c++)
                m[fr[i]].total[c] += st->v[c];
        }
    }
    for (uint32_t i = 0; i < p->nframes; i++) {
        if (same_share(d, m[i].self) && same_share(d, m[i].total)) continue;
        double cs = fabs(change(d, m[i].self)), ct = fabs(change(d, m[i].total));
        m[d->nmethods] = m[i];
        m[d->nmethods].id = i;
        m[d->nmethods++].change = cs > ct ? cs : ct;
    }
    free(seen);
    qsort(m, d->nmethods, sizeof *m, by_change);
    d->methods = m;
    return 0;
}

static int stack_rows(diff *d)
{
    const hp_profile *p = &d->f->p;
    row *r = calloc(p->nstacks + 1, sizeof *r);
    if (!r) return -1;
    for (uint32_t s = 0; s < p->nstacks; s++) {
        const uint64_t *v = p->stacks[s].v;
        if (same_share(d, v)) continue;
        row *x = &r[d->nstacks++];
        x->id = s;
        x->total[0] = v[0];
        x->total[1] = v[1];
        x->change = fabs(change(d, v));
    }
    qsort(r, d->nstacks, sizeof *r, by_change);
    d->stacks = r;
    return 0;
}

/* "root;...;leaf" of folded stack s into *buf (grown as needed); NULL when out of memory. */
static const char *stack_name(const hp_profile *p, uint32_t s, char **buf, size_t *cap)
{
    const hp_pstack *st = &p->stacks[s];
    size_t n = 0;
    for (uint32_t i = st->depth; i-- > 0;) {
        const char *name = hp_profile_str(p, p->frames[p->stack_frames[st->first + i]].func);
        size_t k = strlen(name);
        if (n + k + 2 > *cap) {
            size_t c = (n + k + 2) * 2;
            char *b = realloc(*buf, c);
            if (!b) return NULL;
            *buf = b;
            *cap = c;
        }
        memcpy(*buf + n, name, k);
        n += k;
        (*buf)[n++] = i ? ';' : '\0';
    }
    return *buf;
}

void hp_put_cell(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
    fputc('\n', out);
}

static void print_text(FILE *out, const diff *d, const hp_render_opts *o, const char *names[2])
{
    const hp_profile *p = &d->f->p;
    const hp_pvalue *values;
    hp_pkind_values(p->kind, &values);
    fprintf(out, "%s, %s: A = %s (total %llu), B = %s (total %llu)\n", hp_pkind_name(p->kind),
            values[o->value].name, names[0], (unsigned long long)d->total[0], names[1],
            (unsigned long long)d->total[1]);
    fputs("shares of each profile's total; change = B - A in percentage points\n\n"
          "  total A  total B   change   self A   self B   change  method\n",
          out);
    for (size_t i = 0; i < d->nmethods; i++) {
        const row *r = &d->methods[i];
        fprintf(out, "%8.2f%% %7.2f%% %+8.2f %7.2f%% %7.2f%% %+8.2f  ",
                share(r->total[0], d->total[0]), share(r->total[1], d->total[1]),
                change(d, r->total), share(r->self[0], d->total[0]), share(r->self[1], d->total[1]),
                change(d, r->self));
        hp_put_cell(out, hp_profile_str(p, p->frames[r->id].func));
    }
    fputs("\n        A        B   change  stack\n", out);
    char *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < d->nstacks; i++) {
        const row *r = &d->stacks[i];
        const char *name = stack_name(p, r->id, &buf, &cap);
        fprintf(out, "%8.2f%% %7.2f%% %+8.2f  ", share(r->total[0], d->total[0]),
                share(r->total[1], d->total[1]), change(d, r->total));
        hp_put_cell(out, name ? name : "?");
    }
    free(buf);
}

static void print_json(FILE *out, const diff *d, const hp_render_opts *o, const char *names[2])
{
    const hp_profile *p = &d->f->p;
    const hp_pvalue *values;
    hp_pkind_values(p->kind, &values);
    fputs("{\"kind\":", out);
    hp_json_string(out, hp_pkind_name(p->kind));
    fputs(",\"value\":", out);
    hp_json_string(out, values[o->value].name);
    for (int c = 0; c < 2; c++) {
        fprintf(out, ",\"%c\":{\"file\":", c ? 'b' : 'a');
        hp_json_string(out, names[c]);
        fprintf(out, ",\"total\":%llu}", (unsigned long long)d->total[c]);
    }
    fputs(",\"methods\":[", out);
    for (size_t i = 0; i < d->nmethods; i++) {
        const row *r = &d->methods[i];
        fputs(i ? ",{\"method\":" : "{\"method\":", out);
        hp_json_string(out, hp_profile_str(p, p->frames[r->id].func));
        fprintf(out,
                ",\"self_a\":%llu,\"self_b\":%llu,\"total_a\":%llu,\"total_b\":%llu,"
                "\"self_change\":%.6f,\"total_change\":%.6f}",
                (unsigned long long)r->self[0], (unsigned long long)r->self[1],
                (unsigned long long)r->total[0], (unsigned long long)r->total[1],
                change(d, r->self), change(d, r->total));
    }
    fputs("],\"stacks\":[", out);
    char *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < d->nstacks; i++) {
        const row *r = &d->stacks[i];
        const char *name = stack_name(p, r->id, &buf, &cap);
        fputs(i ? ",{\"stack\":" : "{\"stack\":", out);
        hp_json_string(out, name ? name : "?");
        fprintf(out, ",\"a\":%llu,\"b\":%llu,\"change\":%.6f}", (unsigned long long)r->total[0],
                (unsigned long long)r->total[1], change(d, r->total));
    }
    fputs("]}\n", out);
    free(buf);
}

int hp_render_diff(FILE *out, const hp_profile *a, const hp_profile *b, const hp_render_opts *o,
                   const char *names[2], int json, hp_error *err)
{
    hp_folded f;
    diff d = {.f = &f};
    if (o->value < 0 || o->value >= b->nvalues || a->kind != b->kind)
        return hp_fail(err, 0, "no such value in this profile");
    hp_fold_init(&f, b->kind);
    int rc = hp_fold_add(&f, a, o->value, 0, 0);
    if (rc == 0) rc = hp_fold_add(&f, b, o->value, 1, 0);
    d.total[0] = f.p.total[0];
    d.total[1] = f.p.total[1];
    if (rc == 0) rc = method_rows(&d);
    if (rc == 0) rc = stack_rows(&d);
    if (rc == 0 && json)
        print_json(out, &d, o, names);
    else if (rc == 0 && (d.nmethods || d.nstacks))
        print_text(out, &d, o, names);
    free(d.methods);
    free(d.stacks);
    hp_fold_free(&f);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}
