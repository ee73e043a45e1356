/*
 * pprof output: a gzipped perftools.profiles.Profile, built as protobuf-c
 * messages, packed a batch of samples at a time and deflated by zlib. One Location per
 * frame (function and line), one Function per name and source file; the
 * string table is the profile's own string pool plus the type names.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli/render/profile.pb-c.h"
#include "cli/render/render.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* pprof's names of each kind's values: {type, unit} pairs, and the multiplier
 * from the hprof value (sample count, ms) to the pprof value. */
typedef struct {
    const char *type, *unit;
    int from;         /* hprof value index */
    int per_interval; /* multiplied by the sampling interval in ns */
    int64_t scale;
} ptype;

static const ptype samples_types[] = {{"samples", "count", 0, 0, 1},
                                      {"cpu", "nanoseconds", 0, 1, 1}};
static const ptype times_types[] = {{"calls", "count", 0, 0, 1},
                                    {"cpu", "nanoseconds", 1, 0, 1000000}};
static const ptype sites_types[] = {{"alloc_objects", "count", 0, 0, 1},
                                    {"alloc_space", "bytes", 1, 0, 1},
                                    {"inuse_objects", "count", 2, 0, 1},
                                    {"inuse_space", "bytes", 3, 0, 1}};

static int ptypes(int kind, const ptype **out)
{
    switch (kind) {
    case HP_PK_SAMPLES:
        *out = samples_types;
        return 2;
    case HP_PK_SITES:
        *out = sites_types;
        return 4;
    default:
        *out = times_types;
        return 2;
    }
}

/* The gzip stream: each message is packed into `packed`, then deflated. */
typedef struct {
    z_stream z;
    FILE *out;
    int failed;
    uint8_t *packed;
    size_t packed_cap;
    unsigned char chunk[1 << 16];
} gz_sink;

static void deflate_bytes(gz_sink *s, const uint8_t *data, size_t len, int flush)
{
    s->z.next_in = (Bytef *)data;
    s->z.avail_in = (uInt)len;
    do {
        s->z.next_out = s->chunk;
        s->z.avail_out = sizeof s->chunk;
        if (deflate(&s->z, flush) == Z_STREAM_ERROR) s->failed = 1;
        size_t n = sizeof s->chunk - s->z.avail_out;
        if (n && fwrite(s->chunk, 1, n, s->out) != n) s->failed = 1;
    } while ((s->z.avail_out == 0 || s->z.avail_in > 0) && !s->failed);
}

/* Appends one Profile message to the stream. Concatenated messages parse as
 * one whose repeated fields are joined, so samples go out a batch at a time. */
static void gz_message(gz_sink *s, const Profile *msg)
{
    size_t n = protobuf_c_message_get_packed_size(&msg->base);
    if (n > s->packed_cap) {
        uint8_t *b = realloc(s->packed, n);
        if (!b) {
            s->failed = 1;
            return;
        }
        s->packed = b;
        s->packed_cap = n;
    }
    protobuf_c_message_pack(&msg->base, s->packed);
    for (size_t at = 0; at < n && !s->failed; at += 1u << 30)
        deflate_bytes(s, s->packed + at, n - at < (1u << 30) ? n - at : 1u << 30, Z_NO_FLUSH);
}

/* Everything but the samples, freed together. */
typedef struct {
    char **strings;
    size_t nstrings;
    char **renamed; /* owned copies among strings (pprof_name) */
    size_t nrenamed;
    Function *fns, **fn_ptrs;
    size_t nfns;
    hp_idmap fn_of; /* (name << 32 | source) -> function index */
    Location *locs, **loc_ptrs;
    Line *lines, **line_ptrs;
    ValueType types[4], *type_ptrs[4], period_type;
    int64_t thread_key;
} parts;

static void parts_free(parts *m)
{
    for (size_t i = 0; i < m->nrenamed; i++)
        free(m->renamed[i]);
    free(m->renamed);
    free(m->strings);
    free(m->fns);
    free(m->fn_ptrs);
    hp_idmap_free(&m->fn_of);
    free(m->locs);
    free(m->loc_ptrs);
    free(m->lines);
    free(m->line_ptrs);
}

static int64_t add_string(parts *m, const char *s)
{
    m->strings[m->nstrings] = (char *)(uintptr_t)s;
    return (int64_t)m->nstrings++;
}

/* The agent's pseudo-frames read "<GC>.workers"; pprof takes a name with
 * '<' and '>' for demangled C++ and drops the "<GC>" as template arguments,
 * so they are written "[GC].workers" (Java names such as "Foo.<init>" are
 * left alone: pprof keeps those). NULL when out of memory. */
static const char *pprof_name(parts *m, const char *s)
{
    const char *close = s[0] == '<' ? strchr(s, '>') : NULL;
    if (close == NULL || close[1] != '.' || strpbrk(close + 1, "<>")) return s;
    char *copy = strdup(s);
    if (copy == NULL) return NULL;
    copy[0] = '[';
    copy[close - s] = ']';
    m->renamed[m->nrenamed++] = copy;
    return copy;
}

/* Functions and locations: one location per frame, functions by (name, source). */
static int build_code(parts *m, const hp_profile *p)
{
    uint32_t n = p->nframes ? p->nframes : 1;
    m->fns = calloc(n, sizeof *m->fns);
    m->fn_ptrs = calloc(n, sizeof *m->fn_ptrs);
    m->locs = calloc(n, sizeof *m->locs);
    m->loc_ptrs = calloc(n, sizeof *m->loc_ptrs);
    m->lines = calloc(n, sizeof *m->lines);
    m->line_ptrs = calloc(n, sizeof *m->line_ptrs);
    if (!m->fns || !m->fn_ptrs || !m->locs || !m->loc_ptrs || !m->lines || !m->line_ptrs) return -1;
    for (uint32_t i = 0; i < p->nframes; i++) {
        const hp_pframe *f = &p->frames[i];
        uint64_t key = (uint64_t)f->func << 32 | f->source;
        const uint64_t *known = hp_idmap_get(&m->fn_of, key);
        size_t fn = known ? (size_t)*known : m->nfns;
        if (!known) {
            Function *x = &m->fns[m->nfns];
            perftools__profiles__function__init(x);
            x->id = m->nfns + 1;
            x->name = x->system_name = f->func;
            x->filename = f->source;
            m->fn_ptrs[m->nfns++] = x;
            if (hp_idmap_put(&m->fn_of, key, fn) < 0) return -1;
        }
        perftools__profiles__line__init(&m->lines[i]);
        m->lines[i].function_id = fn + 1;
        m->lines[i].line = f->line > 0 ? f->line : 0;
        m->line_ptrs[i] = &m->lines[i];
        perftools__profiles__location__init(&m->locs[i]);
        m->locs[i].id = i + 1;
        m->locs[i].n_line = 1;
        m->locs[i].line = &m->line_ptrs[i];
        m->loc_ptrs[i] = &m->locs[i];
    }
    return 0;
}

static int64_t clamp64(uint64_t v, int64_t scale)
{
    return v > (uint64_t)(INT64_MAX / scale) ? INT64_MAX : (int64_t)v * scale;
}

/* Samples are packed BATCH at a time, so their messages take memory for one
 * batch, not for every stack of the profile. */
enum { BATCH = 4096 };

typedef struct {
    Sample sample;
    Label label, *label_ptr;
    int64_t values[4];
    uint64_t loc_at; /* the sample's location IDs in the batch's loc_ids */
} batch_item;

typedef struct {
    batch_item *items;
    Sample **ptrs;
    size_t n, cap;     /* cap: BATCH, or fewer for a small profile */
    uint64_t *loc_ids; /* the batch's stacks' frames, as location IDs */
    uint64_t loc_len, loc_cap;
} sample_batch;

static void flush_batch(gz_sink *s, sample_batch *b)
{
    Profile msg;
    perftools__profiles__profile__init(&msg);
    for (size_t i = 0; i < b->n; i++) /* loc_ids has moved while it grew */
        b->items[i].sample.location_id = b->loc_ids + b->items[i].loc_at;
    msg.n_sample = b->n;
    msg.sample = b->ptrs;
    if (b->n) gz_message(s, &msg);
    b->n = 0;
    b->loc_len = 0;
}

/* Room for `depth` more location IDs. */
static int reserve_locations(sample_batch *b, uint32_t depth)
{
    if (b->loc_len + depth <= b->loc_cap) return 0;
    uint64_t cap = (b->loc_len + depth) * 2;
    uint64_t *v = realloc(b->loc_ids, cap * sizeof *v);
    if (!v) return -1;
    b->loc_ids = v;
    b->loc_cap = cap;
    return 0;
}

/* Adds the stack to the batch unless all its values are zero. 0 or -1 (OOM). */
static int batch_stack(sample_batch *b, const hp_profile *p, const hp_pstack *st, const ptype *t,
                       int nt, const hp_render_opts *o, int64_t thread_key)
{
    batch_item *it = &b->items[b->n];
    Sample *x = &it->sample;
    perftools__profiles__sample__init(x);
    x->n_value = (size_t)nt;
    x->value = it->values;
    int any = 0;
    for (int j = 0; j < nt; j++) {
        int64_t scale = t[j].per_interval ? o->interval_ms * 1000000 : t[j].scale;
        x->value[j] = clamp64(st->v[t[j].from], scale);
        any |= x->value[j] != 0;
    }
    if (!any) return 0;
    if (reserve_locations(b, st->depth)) return -1;
    const uint32_t *frames = p->stack_frames + st->first;
    x->n_location_id = st->depth;
    it->loc_at = b->loc_len;
    for (uint32_t i = 0; i < st->depth; i++)
        b->loc_ids[b->loc_len + i] = (uint64_t)frames[i] + 1;
    b->loc_len += st->depth;
    const uint64_t *name = st->thread ? hp_idmap_get(&p->thread_names, st->thread) : NULL;
    if (name) {
        perftools__profiles__label__init(&it->label);
        it->label.key = thread_key;
        it->label.str = (int64_t)*name;
        it->label_ptr = &it->label;
        x->n_label = 1;
        x->label = &it->label_ptr;
    }
    b->ptrs[b->n++] = x;
    return 0;
}

static int write_samples(gz_sink *s, const hp_profile *p, const hp_render_opts *o,
                         int64_t thread_key)
{
    const ptype *t;
    int nt = ptypes(p->kind, &t);
    sample_batch b = {.cap = p->nstacks < BATCH ? (p->nstacks ? p->nstacks : 1) : BATCH};
    b.items = malloc(b.cap * sizeof *b.items);
    b.ptrs = malloc(b.cap * sizeof *b.ptrs);
    int rc = b.items && b.ptrs ? 0 : -1;
    for (uint32_t i = 0; i < p->nstacks && rc == 0 && !s->failed; i++) {
        rc = batch_stack(&b, p, &p->stacks[i], t, nt, o, thread_key);
        if (b.n == b.cap) flush_batch(s, &b);
    }
    if (rc == 0) flush_batch(s, &b);
    free(b.items);
    free(b.ptrs);
    free(b.loc_ids);
    return rc;
}

/* The message of everything but the samples. */
static int build(parts *m, Profile *msg, const hp_profile *p, const hp_render_opts *o)
{
    const ptype *t;
    int nt = ptypes(p->kind, &t);
    m->strings = malloc((p->nstrings + 2 * (size_t)nt + 4) * sizeof *m->strings);
    m->renamed = malloc((p->nstrings ? p->nstrings : 1) * sizeof *m->renamed);
    if (!m->strings || !m->renamed) return -1;
    for (uint32_t i = 0; i < p->nstrings; i++) {
        const char *name = pprof_name(m, hp_profile_str(p, i));
        if (name == NULL) return -1;
        add_string(m, name);
    }
    for (int j = 0; j < nt; j++) {
        perftools__profiles__value_type__init(&m->types[j]);
        m->types[j].type = add_string(m, t[j].type);
        m->types[j].unit = add_string(m, t[j].unit);
        m->type_ptrs[j] = &m->types[j];
    }
    m->thread_key = add_string(m, "thread");
    if (build_code(m, p)) return -1;
    perftools__profiles__value_type__init(&m->period_type);
    m->period_type.type = add_string(m, p->kind == HP_PK_SITES ? "space" : "cpu");
    m->period_type.unit = add_string(m, p->kind == HP_PK_SITES ? "bytes" : "nanoseconds");
    msg->n_sample_type = (size_t)nt;
    msg->sample_type = m->type_ptrs;
    msg->n_location = p->nframes;
    msg->location = m->loc_ptrs;
    msg->n_function = m->nfns;
    msg->function = m->fn_ptrs;
    msg->n_string_table = m->nstrings;
    msg->string_table = m->strings;
    msg->time_nanos = clamp64(p->start_ms, 1000000);
    msg->duration_nanos = clamp64(p->duration_ms, 1000000);
    msg->period_type = &m->period_type;
    /* cpu=samples: one sample per interval of CPU time; the others count every event */
    msg->period = p->kind == HP_PK_SAMPLES ? o->interval_ms * 1000000
                  : p->kind == HP_PK_SITES ? 1
                                           : 1000000;
    for (int j = 0; j < nt; j++)
        if (t[j].from == o->value && !t[j].per_interval)
            msg->default_sample_type = m->types[j].type;
    return 0;
}

int hp_render_pprof(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err)
{
    parts m = {0};
    Profile msg;
    perftools__profiles__profile__init(&msg);
    gz_sink *s = calloc(1, sizeof *s);
    int rc = s ? 0 : -1;
    /* windowBits 15 + 16: a gzip header and trailer, as pprof expects; level 1:
     * most of the size for a fraction of the time */
    if (rc == 0 && deflateInit2(&s->z, 1, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(s);
        s = NULL;
        rc = -1;
    }
    if (rc == 0) rc = build(&m, &msg, p, o);
    if (rc == 0) {
        s->out = out;
        gz_message(s, &msg);
        rc = write_samples(s, p, o, m.thread_key);
        deflate_bytes(s, NULL, 0, Z_FINISH);
        rc = rc || s->failed ? -1 : 0;
    }
    if (s) {
        deflateEnd(&s->z);
        free(s->packed);
        free(s);
    }
    parts_free(&m);
    return rc ? hp_fail(err, 0, "out of memory or write error") : 0;
}
