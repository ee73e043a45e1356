/*
 * pprof output: a gzipped perftools.profiles.Profile, built as protobuf-c
 * messages and packed straight into zlib's deflate stream. One Location per
 * frame (function and line), one Function per name and source file; the
 * string table is the profile's own string pool plus the type names.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "render/profile.pb-c.h"
#include "render/render.h"

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

typedef struct {
    ProtobufCBuffer base; /* first: protobuf-c calls append() with it */
    z_stream z;
    FILE *out;
    int failed;
    size_t pending; /* bytes in in[]: protobuf-c appends a few bytes at a time */
    unsigned char in[1 << 16], chunk[1 << 16];
} gz_sink;

static void deflate_pending(gz_sink *s, int flush)
{
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)s->pending;
    do {
        s->z.next_out = s->chunk;
        s->z.avail_out = sizeof s->chunk;
        if (deflate(&s->z, flush) == Z_STREAM_ERROR) s->failed = 1;
        size_t n = sizeof s->chunk - s->z.avail_out;
        if (n && fwrite(s->chunk, 1, n, s->out) != n) s->failed = 1;
    } while (s->z.avail_out == 0 && !s->failed);
    s->pending = 0;
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    gz_sink *s = (gz_sink *)b;
    while (len > 0) {
        size_t n = sizeof s->in - s->pending < len ? sizeof s->in - s->pending : len;
        memcpy(s->in + s->pending, data, n);
        s->pending += n;
        data += n;
        len -= n;
        if (s->pending == sizeof s->in) deflate_pending(s, Z_NO_FLUSH);
    }
}

/* Everything the message points to, freed together. */
typedef struct {
    char **strings;
    size_t nstrings;
    Function *fns, **fn_ptrs;
    size_t nfns;
    hp_idmap fn_of; /* (name << 32 | source) -> function index */
    Location *locs, **loc_ptrs;
    Line *lines, **line_ptrs;
    Sample *samples, **sample_ptrs;
    size_t nsamples;
    uint64_t *loc_ids;
    int64_t *values;
    Label *labels, **label_ptrs;
    ValueType types[4], *type_ptrs[4], period_type;
} parts;

static void parts_free(parts *m)
{
    free(m->strings);
    free(m->fns);
    free(m->fn_ptrs);
    hp_idmap_free(&m->fn_of);
    free(m->locs);
    free(m->loc_ptrs);
    free(m->lines);
    free(m->line_ptrs);
    free(m->samples);
    free(m->sample_ptrs);
    free(m->loc_ids);
    free(m->values);
    free(m->labels);
    free(m->label_ptrs);
}

static int64_t add_string(parts *m, const char *s)
{
    m->strings[m->nstrings] = (char *)(uintptr_t)s;
    return (int64_t)m->nstrings++;
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

static int build_samples(parts *m, const hp_profile *p, const ptype *t, int nt,
                         const hp_render_opts *o, int64_t thread_key)
{
    size_t n = p->nstacks ? p->nstacks : 1;
    m->samples = calloc(n, sizeof *m->samples);
    m->sample_ptrs = calloc(n, sizeof *m->sample_ptrs);
    m->loc_ids = malloc((p->nstack_frames ? p->nstack_frames : 1) * sizeof *m->loc_ids);
    m->values = calloc(n * (size_t)nt, sizeof *m->values);
    m->labels = calloc(n, sizeof *m->labels);
    m->label_ptrs = calloc(n, sizeof *m->label_ptrs);
    if (!m->samples || !m->sample_ptrs || !m->loc_ids || !m->values || !m->labels || !m->label_ptrs)
        return -1;
    for (uint64_t i = 0; i < p->nstack_frames; i++)
        m->loc_ids[i] = (uint64_t)p->stack_frames[i] + 1;
    size_t k = 0;
    for (uint32_t s = 0; s < p->nstacks; s++) {
        const hp_pstack *st = &p->stacks[s];
        Sample *x = &m->samples[k];
        perftools__profiles__sample__init(x);
        x->n_location_id = st->depth;
        x->location_id = m->loc_ids + st->first;
        x->n_value = (size_t)nt;
        x->value = m->values + k * (size_t)nt;
        int any = 0;
        for (int j = 0; j < nt; j++) {
            int64_t scale = t[j].per_interval ? o->interval_ms * 1000000 : t[j].scale;
            x->value[j] = clamp64(st->v[t[j].from], scale);
            any |= x->value[j] != 0;
        }
        const uint64_t *name = hp_idmap_get(&p->thread_names, st->thread);
        if (st->thread && name) {
            perftools__profiles__label__init(&m->labels[k]);
            m->labels[k].key = thread_key;
            m->labels[k].str = (int64_t)*name;
            m->label_ptrs[k] = &m->labels[k];
            x->n_label = 1;
            x->label = &m->label_ptrs[k];
        }
        if (any) m->sample_ptrs[k++] = x;
    }
    m->nsamples = k;
    return 0;
}

static int pack_gzip(FILE *out, const Profile *msg)
{
    gz_sink *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->base.append = gz_append;
    s->out = out;
    /* windowBits 15 + 16: a gzip header and trailer, as pprof expects; level 1:
     * most of the size for a fraction of the time */
    if (deflateInit2(&s->z, 1, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(s);
        return -1;
    }
    protobuf_c_message_pack_to_buffer(&msg->base, &s->base);
    deflate_pending(s, Z_FINISH);
    deflateEnd(&s->z);
    int failed = s->failed;
    free(s);
    return failed ? -1 : 0;
}

static int build(parts *m, Profile *msg, const hp_profile *p, const hp_render_opts *o)
{
    const ptype *t;
    int nt = ptypes(p->kind, &t);
    m->strings = malloc((p->nstrings + 2 * (size_t)nt + 4) * sizeof *m->strings);
    if (!m->strings) return -1;
    for (uint32_t i = 0; i < p->nstrings; i++)
        add_string(m, hp_profile_str(p, i));
    for (int j = 0; j < nt; j++) {
        perftools__profiles__value_type__init(&m->types[j]);
        m->types[j].type = add_string(m, t[j].type);
        m->types[j].unit = add_string(m, t[j].unit);
        m->type_ptrs[j] = &m->types[j];
    }
    int64_t thread_key = add_string(m, "thread");
    if (build_code(m, p) || build_samples(m, p, t, nt, o, thread_key)) return -1;
    perftools__profiles__value_type__init(&m->period_type);
    m->period_type.type = add_string(m, p->kind == HP_PK_SITES ? "space" : "cpu");
    m->period_type.unit = add_string(m, p->kind == HP_PK_SITES ? "bytes" : "nanoseconds");
    msg->n_sample_type = (size_t)nt;
    msg->sample_type = m->type_ptrs;
    msg->n_sample = m->nsamples;
    msg->sample = m->sample_ptrs;
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
    int rc = build(&m, &msg, p, o);
    if (rc == 0) rc = pack_gzip(out, &msg);
    parts_free(&m);
    return rc ? hp_fail(err, 0, "out of memory or write error") : 0;
}
