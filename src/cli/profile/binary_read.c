/*
 * Profiles from binary (format=b) files: every CPU SAMPLES record summed,
 * the last ALLOC SITES record, frames and traces resolved through the
 * record index. Frames are interned once per frame ID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/profile/load.h"
#include "cli/readers/index.h"

#define RECENT 16384 /* direct-mapped cache in front of the frame map: traces share frames */

typedef struct {
    const hp_index *ix;
    hp_profile *p;
    hp_idmap cache; /* frame ID -> model frame */
    struct {
        uint64_t id;
        uint32_t frame; /* UINT32_MAX: empty */
    } recent[RECENT];
    uint32_t *frames, *held; /* the stack being read; the one waiting to be added */
    size_t cap, held_cap;
    uint64_t *trace_at; /* dense serial - first_trace -> TRACE offset, or NULL */
    uint32_t *stack_of; /* with trace_at: the trace's stack in the profile, once added */
    uint32_t first_trace, ntrace_slots;
} breader;

/* The agent numbers traces consecutively: when the serials are dense, a plain
 * array finds each sample's trace in one memory access instead of a probe of
 * the index's hash map (three arrays), which dominated reading large profiles. */
static void dense_traces(breader *b)
{
    const hp_idmap *m = &b->ix->traces;
    uint64_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            lo = m->keys[i] < lo ? m->keys[i] : lo;
            hi = m->keys[i] > hi ? m->keys[i] : hi;
        }
    if (m->len == 0 || hi - lo >= 2 * m->len + 1024) return;
    b->trace_at = malloc((hi - lo + 1) * sizeof *b->trace_at);
    b->stack_of = malloc((hi - lo + 1) * sizeof *b->stack_of);
    if (!b->trace_at || !b->stack_of) { /* the hash map still works */
        free(b->trace_at);
        free(b->stack_of);
        b->trace_at = NULL;
        b->stack_of = NULL;
        return;
    }
    for (uint64_t i = 0; i <= hi - lo; i++) {
        b->trace_at[i] = UINT64_MAX;
        b->stack_of[i] = UINT32_MAX;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) b->trace_at[m->keys[i] - lo] = m->vals[i];
    b->first_trace = (uint32_t)lo;
    b->ntrace_slots = (uint32_t)(hi - lo + 1);
}

static const uint64_t *trace_offset(const breader *b, uint32_t serial)
{
    if (!b->trace_at) return hp_idmap_get(&b->ix->traces, serial);
    uint32_t i = serial - b->first_trace; /* wraps for serials below the first */
    return i < b->ntrace_slots && b->trace_at[i] != UINT64_MAX ? &b->trace_at[i] : NULL;
}

/* The frame's class name in Java form; a pseudo-frame's bracketed class
 * ("[GC]") as written, not read as an array descriptor. */
static int frame_class_name(const hp_index *ix, uint32_t serial, char *buf, size_t cap)
{
    const uint64_t *at = hp_idmap_get(&ix->serials, serial);
    hp_record r;
    hp_rec o;
    const uint8_t *s;
    uint32_t n;
    if (at) {
        hp_index_record(ix, *at, &r, &o);
        if (hp_index_string(ix, o.load_class.name_id, &s, &n) && n >= 2 && n < cap && s[0] == '[' &&
            s[n - 1] == ']') {
            memcpy(buf, s, n);
            buf[n] = '\0';
            return 1;
        }
    }
    return hp_index_class_name_by_serial(ix, serial, buf, cap);
}

static uint32_t model_frame(breader *b, uint64_t frame_id)
{
    size_t slot = (frame_id ^ frame_id >> 17) & (RECENT - 1);
    if (b->recent[slot].frame != UINT32_MAX && b->recent[slot].id == frame_id)
        return b->recent[slot].frame;
    const uint64_t *hit = hp_idmap_get(&b->cache, frame_id);
    if (hit) {
        b->recent[slot].id = frame_id;
        b->recent[slot].frame = (uint32_t)*hit;
        return (uint32_t)*hit;
    }
    const uint64_t *at = hp_idmap_get(&b->ix->frames, frame_id);
    uint32_t id;
    if (!at) {
        id = hp_profile_pseudo(b->p, "<Unknown Class>.<Unknown Method>", HP_FK_UNWALKABLE);
    } else {
        hp_record r;
        hp_rec o;
        char name[4096], *end;
        hp_index_record(b->ix, *at, &r, &o);
        if (!frame_class_name(b->ix, o.frame.class_serial, name, sizeof name - 2))
            strcpy(name, "<Unknown Class>");
        size_t cls_len = strlen(name);
        name[cls_len] = '.';
        end = name + cls_len + 1;
        hp_index_cstring(b->ix, o.frame.method_id, end, sizeof name - cls_len - 1,
                         "<Unknown Method>");
        const uint8_t *s;
        uint32_t n;
        hp_pframe f = {.func = hp_profile_string(b->p, name, strlen(name)),
                       .cls_len = (uint32_t)cls_len,
                       .line = o.frame.line == -1 ? HP_LINE_UNKNOWN : o.frame.line,
                       .kind = HP_FK_AUTO};
        f.sig = hp_index_string(b->ix, o.frame.sig_id, &s, &n)
                    ? hp_profile_string(b->p, (const char *)s, n)
                    : 0;
        f.source = hp_index_string(b->ix, o.frame.source_id, &s, &n)
                       ? hp_profile_string(b->p, (const char *)s, n)
                       : 0;
        id = f.func == UINT32_MAX || f.sig == UINT32_MAX || f.source == UINT32_MAX
                 ? UINT32_MAX
                 : hp_profile_frame(b->p, &f);
    }
    if (id != UINT32_MAX && hp_idmap_put(&b->cache, frame_id, id) < 0) return UINT32_MAX;
    return id;
}

/* The trace's frames into b->frames from slot `skip`; its depth and thread. */
static int trace_frames(breader *b, uint32_t serial, size_t skip, uint32_t *depth, uint32_t *thread,
                        uint64_t at_offset, hp_error *err)
{
    const uint64_t *at = trace_offset(b, serial);
    if (!at) return hp_fail(err, at_offset, "cites TRACE %u, which the file does not have", serial);
    hp_record r;
    hp_rec o;
    hp_index_record(b->ix, *at, &r, &o);
    size_t need = skip + o.trace.nframes + 1;
    if (need > b->cap) {
        uint32_t *v = realloc(b->frames, need * 2 * sizeof *v);
        if (!v) return hp_fail(err, at_offset, "out of memory");
        b->frames = v;
        b->cap = need * 2;
    }
    *depth = (uint32_t)skip;
    *thread = o.trace.thread;
    for (uint32_t i = 0; i < o.trace.nframes; i++)
        b->frames[(*depth)++] = model_frame(b, hp_trace_frame(b->ix->f, &o, i));
    if (o.trace.nframes == 0)
        b->frames[(*depth)++] = hp_profile_pseudo(b->p, "[empty trace]", HP_FK_UNWALKABLE);
    for (uint32_t i = (uint32_t)skip; i < *depth; i++)
        if (b->frames[i] == UINT32_MAX) return hp_fail(err, at_offset, "out of memory");
    return 0;
}

/* The stack of a trace added before (samples of several dumps cite the same
 * traces), or UINT32_MAX. */
static uint32_t known_stack(const breader *b, uint32_t serial)
{
    uint32_t i = serial - b->first_trace;
    return b->stack_of && i < b->ntrace_slots ? b->stack_of[i] : UINT32_MAX;
}

/* A stack read and hashed, added once the next one is read: by then its
 * table slot, prefetched, is in cache. */
typedef struct {
    int any;
    uint32_t serial, depth, thread;
    uint64_t hash, v[HP_PVALUES];
} held_stack;

static int add_held(breader *b, held_stack *h)
{
    if (!h->any) return 0;
    h->any = 0;
    uint32_t id = hp_profile_stack(b->p, b->held, h->depth, h->thread, h->hash);
    if (id == UINT32_MAX) return -1;
    hp_profile_count(b->p, id, h->v);
    if (b->stack_of) b->stack_of[h->serial - b->first_trace] = id;
    return 0;
}

/* Reads b->frames' stack into the held slot, adding the one held before. */
static int hold(breader *b, held_stack *h, uint32_t serial, uint32_t depth, uint32_t thread,
                uint32_t count)
{
    uint64_t hash = hp_profile_stack_hash(b->frames, depth, thread);
    hp_profile_prefetch(b->p, hash);
    if (add_held(b, h)) return -1;
    uint32_t *f = b->held;
    size_t cap = b->held_cap;
    b->held = b->frames;
    b->held_cap = b->cap;
    b->frames = f;
    b->cap = cap;
    *h = (held_stack){1, serial, depth, thread, hash, {count}};
    return 0;
}

static int add_samples(breader *b, const hp_record *r, const hp_rec *o, uint64_t *stated,
                       hp_error *err)
{
    held_stack h = {0};
    stated[0] += o->samples.total;
    for (uint32_t i = 0; i < o->samples.ntraces; i++) {
        uint32_t count, serial, depth, thread;
        if (i + 8 < o->samples.ntraces) { /* the agent lists traces by count, not by offset */
            hp_sample_at(o, i + 8, &count, &serial);
            const uint64_t *ahead = b->trace_at ? trace_offset(b, serial) : NULL;
            if (ahead) __builtin_prefetch(b->ix->f->base + *ahead);
        }
        hp_sample_at(o, i, &count, &serial);
        uint32_t known = known_stack(b, serial);
        if (known != UINT32_MAX) {
            hp_profile_count(b->p, known, (uint64_t[HP_PVALUES]){count});
            continue;
        }
        if (trace_frames(b, serial, 0, &depth, &thread, r->offset, err)) return -1;
        if (hold(b, &h, serial, depth, thread, count))
            return hp_fail(err, r->offset, "out of memory");
    }
    return add_held(b, &h) ? hp_fail(err, r->offset, "out of memory") : 0;
}

static int add_sites(breader *b, const hp_record *r, const hp_rec *o, uint64_t *stated,
                     hp_error *err)
{
    stated[0] = o->sites.alloc_instances;
    stated[1] = o->sites.alloc_bytes;
    stated[2] = o->sites.live_instances;
    stated[3] = o->sites.live_bytes;
    for (uint32_t i = 0; i < o->sites.nsites; i++) {
        hp_site s;
        uint32_t depth, thread;
        char name[4096];
        hp_site_at(o, i, &s);
        if (trace_frames(b, s.trace, 1, &depth, &thread, r->offset, err)) return -1;
        if (!hp_index_class_name_by_serial(b->ix, s.class_serial, name, sizeof name) &&
            hp_type_name(s.array_type))
            snprintf(name, sizeof name, "%s[]", hp_type_name(s.array_type));
        hp_pframe cls = {.func = hp_profile_string(b->p, name, strlen(name)), .kind = HP_FK_ALLOC};
        b->frames[0] = cls.func == UINT32_MAX ? UINT32_MAX : hp_profile_frame(b->p, &cls);
        uint64_t v[HP_PVALUES] = {s.alloc_instances, s.alloc_bytes, s.live_instances, s.live_bytes};
        if (b->frames[0] == UINT32_MAX || hp_profile_add(b->p, b->frames, depth, thread, v))
            return hp_fail(err, r->offset, "out of memory");
    }
    return 0;
}

static int thread_names(const hp_index *ix, hp_profile *p)
{
    for (size_t i = 0; i < ix->threads.cap; i++) {
        if (!ix->threads.used[i]) continue;
        hp_record r;
        hp_rec o;
        const uint8_t *s;
        uint32_t n;
        hp_index_record(ix, ix->threads.vals[i], &r, &o);
        if (!hp_index_string(ix, o.thread.name_id, &s, &n)) continue;
        uint32_t id = hp_profile_string(p, (const char *)s, n);
        if (id == UINT32_MAX || hp_idmap_put(&p->thread_names, o.thread.serial, id) < 0) return -1;
    }
    return 0;
}

static int read_kind(hp_profile_set *set, const hp_index *ix, int kind, hp_error *err)
{
    const hp_file *f = ix->f;
    breader *b = malloc(sizeof *b); /* the cache is too big for the stack */
    if (!b) return hp_fail(err, 0, "out of memory");
    memset(b, 0, sizeof *b);
    b->ix = ix;
    b->p = &set->kinds[kind];
    for (size_t i = 0; i < RECENT; i++)
        b->recent[i].frame = UINT32_MAX;
    dense_traces(b);
    uint64_t stated[HP_PVALUES] = {0}, pos = f->first_record;
    hp_record r;
    hp_rec o;
    int rc = 0;
    b->p->start_ms = f->timestamp_ms;
    if (kind == HP_PK_SITES && ix->last_sites != UINT64_MAX) {
        hp_index_record(ix, ix->last_sites, &r, &o);
        b->p->duration_ms = r.time / 1000;
        rc = add_sites(b, &r, &o, stated, err);
    }
    while (kind == HP_PK_SAMPLES && rc == 0 && hp_next_record(f, &pos, &r, err) == 1) {
        if (r.tag != HP_CPU_SAMPLES) continue;
        hp_parse_record(f, &r, &o, err); /* the index has accepted every record */
        b->p->duration_ms = r.time / 1000;
        rc = add_samples(b, &r, &o, stated, err);
    }
    if (rc == 0 && (thread_names(ix, b->p) || hp_profile_settle(b->p, stated)))
        rc = hp_fail(err, 0, "out of memory");
    hp_idmap_free(&b->cache);
    free(b->frames);
    free(b->held);
    free(b->trace_at);
    free(b->stack_of);
    free(b);
    return rc;
}

int hp_read_binary(hp_profile_set *set, const hp_file *f, hp_error *err)
{
    hp_index ix;
    if (hp_index_build(&ix, f, 0, err)) {
        hp_index_free(&ix);
        return -1;
    }
    set->present[HP_PK_SAMPLES] = ix.last_samples != UINT64_MAX;
    set->present[HP_PK_SITES] = ix.last_sites != UINT64_MAX;
    int want = set->want, rc = 0;
    for (int k = 0; k < HP_PK_NKINDS && want == HP_WANT_FIRST; k++)
        if (set->present[k]) want = k;
    for (int k = 0; k < HP_PK_NKINDS && rc == 0; k++)
        if (set->present[k] && (want == k || want == HP_WANT_ALL)) rc = read_kind(set, &ix, k, err);
    hp_index_free(&ix);
    return rc;
}
