/* The profile model: interning of strings, frames and stacks. */
#include "cli/profile/profile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const hp_pvalue samples_values[] = {{"samples", "count"}};
static const hp_pvalue times_values[] = {{"calls", "count"}, {"time", "ms"}};
static const hp_pvalue sites_values[] = {{"alloc-objects", "count"},
                                         {"alloc-bytes", "bytes"},
                                         {"live-objects", "count"},
                                         {"live-bytes", "bytes"}};

const char *hp_pkind_name(int kind)
{
    static const char *const names[] = {"CPU SAMPLES", "CPU TIME", "cpu=old", "SITES"};
    return kind >= 0 && kind < HP_PK_NKINDS ? names[kind] : "?";
}

int hp_pkind_values(int kind, const hp_pvalue **out)
{
    switch (kind) {
    case HP_PK_SAMPLES:
        *out = samples_values;
        return 1;
    case HP_PK_SITES:
        *out = sites_values;
        return 4;
    default:
        *out = times_values;
        return 2;
    }
}

int hp_pkind_value_index(int kind, const char *name)
{
    const hp_pvalue *v;
    int n = hp_pkind_values(kind, &v);
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name)) return i;
    return -1;
}

void hp_profile_init(hp_profile *p, int kind, int format)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->format = format;
    const hp_pvalue *v;
    p->nvalues = hp_pkind_values(kind, &v);
    hp_profile_string(p, "", 0);
}

void hp_profile_free(hp_profile *p)
{
    free(p->arena);
    free(p->str_at);
    hp_itab_free(&p->str_tab);
    free(p->frames);
    hp_itab_free(&p->frame_tab);
    free(p->stack_frames);
    free(p->stacks);
    hp_itab_free(&p->stack_tab);
    hp_idmap_free(&p->thread_names);
    memset(p, 0, sizeof *p);
}

/* Grows *v (elements of `size` bytes) to hold `need`; 0 or -1. */
static int reserve(void **v, uint64_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap) return 0;
    uint64_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / size) return -1;
    void *m = realloc(*v, (size_t)(n * size));
    if (!m) return -1;
    *v = m;
    *cap = n;
    return 0;
}

static int reserve32(void **v, uint32_t *cap, uint64_t need, size_t size)
{
    uint64_t c = *cap;
    if (need >= UINT32_MAX) return -1;
    int rc = reserve(v, &c, need, size);
    *cap = (uint32_t)c;
    return rc;
}

typedef struct {
    const hp_profile *p;
    const char *s;
    size_t n;
} str_key;

static int str_eq(const void *ctx, uint32_t id)
{
    const str_key *k = ctx;
    const char *s = hp_profile_str(k->p, id);
    return strlen(s) == k->n && memcmp(s, k->s, k->n) == 0;
}

uint32_t hp_profile_string(hp_profile *p, const char *s, size_t n)
{
    if (memchr(s, 0, n)) { /* strings are C strings here; a NUL inside is data, not an end */
        char *copy = malloc(n ? n : 1);
        if (!copy) return UINT32_MAX;
        for (size_t i = 0; i < n; i++)
            copy[i] = s[i] ? s[i] : '?';
        uint32_t id = hp_profile_string(p, copy, n);
        free(copy);
        return id;
    }
    uint64_t h = hp_hash_bytes(s, n, 0);
    str_key k = {p, s, n};
    uint32_t id = hp_itab_find(&p->str_tab, h, str_eq, &k);
    if (id != UINT32_MAX) return id;
    uint64_t acap = p->arena_cap;
    if (reserve((void **)&p->arena, &acap, p->arena_len + n + 1, 1) ||
        reserve32((void **)&p->str_at, &p->str_cap, p->nstrings + 1ull, sizeof *p->str_at))
        return UINT32_MAX;
    p->arena_cap = (size_t)acap;
    memcpy(p->arena + p->arena_len, s, n);
    p->arena[p->arena_len + n] = '\0';
    p->str_at[p->nstrings] = p->arena_len;
    p->arena_len += n + 1;
    if (hp_itab_add(&p->str_tab, h, p->nstrings)) return UINT32_MAX;
    return p->nstrings++;
}

static int starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* The kind of a pseudo-frame from its bracketed class ("[GC]", "<JIT>"), or -1. */
static int pseudo_kind(const char *cls, size_t n)
{
    static const struct {
        const char *word;
        int kind;
    } words[] = {{"gc", HP_FK_GC},
                 {"jit", HP_FK_JIT},
                 {"unwalkable", HP_FK_UNWALKABLE},
                 {"unknown class", HP_FK_UNWALKABLE}};
    if (n < 2 || !((cls[0] == '[' && cls[n - 1] == ']') || (cls[0] == '<' && cls[n - 1] == '>')))
        return -1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t k = strlen(words[i].word);
        /* the word alone or followed by a separator: "[GC]", "[GC workers]", not "[GCLocker]" */
        if (k <= n - 2 && !strncasecmp(cls + 1, words[i].word, k) &&
            !isalnum((unsigned char)cls[1 + k]))
            return words[i].kind;
    }
    return HP_FK_VM;
}

static int derived_kind(const hp_profile *p, const hp_pframe *f)
{
    const char *name = hp_profile_str(p, f->func);
    int pseudo = pseudo_kind(name, f->cls_len);
    if (pseudo >= 0) return pseudo;
    if (f->line == HP_LINE_NATIVE) return HP_FK_NATIVE;
    if (starts(name, f->cls_len, "<Unknown Class>") || strstr(name, "<Unknown Method>"))
        return HP_FK_UNWALKABLE;
    static const char *const jdk[] = {"java.", "javax.", "jdk.", "sun.", "com.sun."};
    for (size_t i = 0; i < sizeof jdk / sizeof jdk[0]; i++)
        if (starts(name, f->cls_len, jdk[i])) return HP_FK_JDK;
    return HP_FK_USER;
}

typedef struct {
    const hp_profile *p;
    const hp_pframe *f;
} frame_key;

static int frame_eq(const void *ctx, uint32_t i)
{
    const frame_key *k = ctx;
    const hp_pframe *a = &k->p->frames[i], *b = k->f;
    return a->func == b->func && a->cls_len == b->cls_len && a->sig == b->sig &&
           a->source == b->source && a->line == b->line && a->kind == b->kind;
}

uint32_t hp_profile_frame(hp_profile *p, const hp_pframe *in)
{
    hp_pframe f = *in;
    if (f.kind == HP_FK_AUTO) f.kind = (uint8_t)derived_kind(p, &f);
    uint32_t key[6] = {f.func, f.cls_len, f.sig, f.source, (uint32_t)f.line, f.kind};
    uint64_t h = hp_hash_bytes(key, sizeof key, 1);
    frame_key k = {p, &f};
    uint32_t id = hp_itab_find(&p->frame_tab, h, frame_eq, &k);
    if (id != UINT32_MAX) return id;
    if (reserve32((void **)&p->frames, &p->frames_cap, p->nframes + 1ull, sizeof f) ||
        hp_itab_add(&p->frame_tab, h, p->nframes))
        return UINT32_MAX;
    p->frames[p->nframes] = f;
    return p->nframes++;
}

uint32_t hp_profile_pseudo(hp_profile *p, const char *name, int kind)
{
    hp_pframe f = {.func = hp_profile_string(p, name, strlen(name)), .kind = (uint8_t)kind};
    return f.func == UINT32_MAX ? UINT32_MAX : hp_profile_frame(p, &f);
}

typedef struct {
    const hp_profile *p;
    const uint32_t *frames;
    uint32_t depth, thread;
} stack_key;

static int stack_eq(const void *ctx, uint32_t i)
{
    const stack_key *k = ctx;
    const hp_pstack *s = &k->p->stacks[i];
    return s->depth == k->depth && s->thread == k->thread &&
           memcmp(k->p->stack_frames + s->first, k->frames, k->depth * sizeof *k->frames) == 0;
}

uint64_t hp_profile_stack_hash(const uint32_t *frames, uint32_t depth, uint32_t thread)
{
    return hp_hash_bytes(frames, depth * sizeof *frames, thread);
}

void hp_profile_prefetch(const hp_profile *p, uint64_t hash)
{
    hp_itab_prefetch(&p->stack_tab, hash);
}

int hp_profile_add(hp_profile *p, const uint32_t *frames, uint32_t depth, uint32_t thread,
                   const uint64_t v[HP_PVALUES])
{
    uint32_t id =
        hp_profile_stack(p, frames, depth, thread, hp_profile_stack_hash(frames, depth, thread));
    if (id == UINT32_MAX) return -1;
    hp_profile_count(p, id, v);
    return 0;
}

uint32_t hp_profile_stack(hp_profile *p, const uint32_t *frames, uint32_t depth, uint32_t thread,
                          uint64_t hash)
{
    stack_key k = {p, frames, depth, thread};
    uint32_t id = hp_itab_find(&p->stack_tab, hash, stack_eq, &k);
    if (id != UINT32_MAX) return id;
    if (reserve32((void **)&p->stacks, &p->stacks_cap, p->nstacks + 1ull, sizeof *p->stacks) ||
        reserve((void **)&p->stack_frames, &p->stack_frames_cap, p->nstack_frames + depth,
                sizeof *frames) ||
        hp_itab_add(&p->stack_tab, hash, p->nstacks))
        return UINT32_MAX;
    memcpy(p->stack_frames + p->nstack_frames, frames, depth * sizeof *frames);
    p->stacks[p->nstacks] =
        (hp_pstack){.first = p->nstack_frames, .depth = depth, .thread = thread};
    p->nstack_frames += depth;
    if (thread) p->per_thread = 1;
    return p->nstacks++;
}

void hp_profile_count(hp_profile *p, uint32_t stack, const uint64_t v[HP_PVALUES])
{
    for (int i = 0; i < HP_PVALUES; i++) {
        /* Saturate: hostile counts must not wrap totals below their parts. */
        uint64_t *s = &p->stacks[stack].v[i], *t = &p->total[i];
        *s = *s + v[i] < *s ? UINT64_MAX : *s + v[i];
        *t = *t + v[i] < *t ? UINT64_MAX : *t + v[i];
    }
}

int hp_profile_settle(hp_profile *p, const uint64_t stated[HP_PVALUES])
{
    uint64_t rest[HP_PVALUES] = {0};
    int any = 0;
    for (int i = 0; i < HP_PVALUES; i++)
        if (stated[i] > p->total[i]) {
            rest[i] = stated[i] - p->total[i];
            any = 1;
        }
    if (!any) return 0;
    uint32_t f = hp_profile_pseudo(p, "[below cutoff]", HP_FK_SUMMARY);
    return f == UINT32_MAX ? -1 : hp_profile_add(p, &f, 1, 0, rest);
}
