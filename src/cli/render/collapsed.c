/*
 * Folded stacks ("root;...;leaf count"), the input of flamegraph.pl and
 * speedscope: one line per distinct path of function names with a non-zero
 * value, so the counts add up to the profile's total.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/render/fold.h"
#include "cli/render/render.h"

/* Lines are assembled in a buffer: the output is several times the input,
 * and one stdio call per name would dominate the command's time. */
typedef struct {
    FILE *out;
    size_t n;
    char buf[1 << 16];
} obuf;

static void flush(obuf *b)
{
    fwrite(b->buf, 1, b->n, b->out);
    b->n = 0;
}

static void put(obuf *b, const char *s, size_t n)
{
    while (n > 0) {
        if (b->n == sizeof b->buf) flush(b);
        size_t k = sizeof b->buf - b->n < n ? sizeof b->buf - b->n : n;
        memcpy(b->buf + b->n, s, k);
        b->n += k;
        s += k;
        n -= k;
    }
}

/* ';' separates frames and '\n' lines: such bytes in names are written as '?'. */
static void put_name(obuf *b, const char *s, size_t n, int clean)
{
    if (clean) {
        put(b, s, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        put(b, s[i] == ';' || (unsigned char)s[i] < 0x20 ? "?" : s + i, 1);
}

static int is_clean(const char *s)
{
    for (; *s; s++)
        if (*s == ';' || (unsigned char)*s < 0x20) return 0;
    return 1;
}

static void put_stacks(obuf *b, const hp_profile *p, const uint32_t *len, const uint8_t *clean)
{
    char num[24];
    for (uint32_t s = 0; s < p->nstacks; s++) {
        const hp_pstack *st = &p->stacks[s];
        const uint32_t *fr = p->stack_frames + st->first;
        for (uint32_t i = st->depth; i-- > 0;) {
            put_name(b, hp_profile_str(p, p->frames[fr[i]].func), len[fr[i]], clean[fr[i]]);
            put(b, i ? ";" : " ", 1);
        }
        char *d = num + sizeof num;
        *--d = '\n';
        uint64_t v = st->v[0];
        do {
            *--d = (char)('0' + v % 10);
        } while ((v /= 10) != 0);
        put(b, d, (size_t)(num + sizeof num - d));
    }
    flush(b);
}

int hp_render_collapsed(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err)
{
    hp_folded f;
    hp_fold_init(&f, p->kind);
    uint32_t *len = NULL;
    uint8_t *clean = NULL;
    obuf *b = NULL;
    int rc = hp_fold_add(&f, p, o->value, 0, o->threads);
    if (rc == 0) {
        len = malloc((f.p.nframes + 1) * sizeof *len);
        clean = malloc(f.p.nframes + 1);
        b = malloc(sizeof *b);
        rc = len && clean && b ? 0 : -1;
    }
    for (uint32_t i = 0; rc == 0 && i < f.p.nframes; i++) {
        const char *name = hp_profile_str(&f.p, f.p.frames[i].func);
        len[i] = (uint32_t)strlen(name);
        clean[i] = (uint8_t)is_clean(name);
    }
    if (rc == 0) {
        b->out = out;
        b->n = 0;
        put_stacks(b, &f.p, len, clean);
    }
    free(b);
    free(len);
    free(clean);
    hp_fold_free(&f);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}
