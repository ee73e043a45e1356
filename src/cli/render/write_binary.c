/*
 * Merged profiles as a binary (format=b) file: JAVA PROFILE 1.0.2 with 8-byte
 * IDs; UTF8 (ID = string index + 1), LOAD CLASS per class name, FRAME per
 * frame, START THREAD, TRACE per stack, then CPU SAMPLES and ALLOC SITES.
 * Counts above the format's u4 fields saturate.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/render/merge.h"
#include "format/bytes.h"
#include "format/hprof_format.h"

/* IDs are written as u8. */
enum { ID_SIZE = 8 };

typedef struct {
    FILE *out;
    hp_profile names; /* every string written (UTF8 ID = string id), on first use */
    hp_idmap loaded;  /* class name string id -> 1 once LOAD CLASS is written */
} writer;

static void u4(FILE *out, uint64_t v)
{
    uint32_t x = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    uint8_t b[4];
    hp_put_be32(b, x);
    fwrite(b, 1, 4, out);
}

static void u8(FILE *out, uint64_t v)
{
    u4(out, v >> 32);
    u4(out, v & 0xffffffffu);
}

static void record(FILE *out, uint8_t tag, uint64_t length)
{
    fputc(tag, out);
    u4(out, 0);
    u4(out, length);
}

/* The UTF8 ID of a string, written before its first use; 0 for "". */
static uint64_t name(writer *w, const char *s, size_t n)
{
    uint32_t before = w->names.nstrings, id = hp_profile_string(&w->names, s, n);
    if (id == UINT32_MAX || id == 0) return id == 0 ? 0 : UINT64_MAX;
    if (id >= before) {
        record(w->out, HP_UTF8, ID_SIZE + n);
        u8(w->out, id);
        fwrite(s, 1, n, w->out);
    }
    return id;
}

/* The serial of a class (its name's ID), with LOAD CLASS before its first use. */
static uint64_t class_serial(writer *w, const char *s, size_t n)
{
    uint64_t id = name(w, s, n);
    if (id == UINT64_MAX || id == 0) return id;
    int rc = hp_idmap_put(&w->loaded, id, 1);
    if (rc < 0) return UINT64_MAX;
    if (rc == 1) {
        record(w->out, HP_LOAD_CLASS, hp_load_class_size(ID_SIZE));
        u4(w->out, id);
        u8(w->out, id); /* class object ID */
        u4(w->out, 0);
        u8(w->out, id);
    }
    return id;
}

/* hprof's own frames ("[below cutoff]", "[empty trace]") and SITES' classes are
 * not trace frames. */
static int in_trace(const hp_profile *p, uint32_t frame)
{
    const hp_pframe *f = &p->frames[frame];
    return f->kind != HP_FK_SUMMARY && f->kind != HP_FK_ALLOC && f->kind != HP_FK_THREAD &&
           strcmp(hp_profile_str(p, f->func), "[empty trace]") != 0;
}

static uint64_t frame_id(int kind, uint32_t frame)
{
    return (uint64_t)(kind + 1) << 32 | (frame + 1);
}

/* FRAME records of every frame of a kind, with their names. */
static int frames(writer *w, const hp_profile *p, int kind)
{
    for (uint32_t i = 0; i < p->nframes; i++) {
        const hp_pframe *f = &p->frames[i];
        if (!in_trace(p, i)) continue;
        const char *func = hp_profile_str(p, f->func), *sig = hp_profile_str(p, f->sig);
        const char *source = hp_profile_str(p, f->source);
        size_t len = strlen(func), cls = f->cls_len && f->cls_len < len ? f->cls_len : 0;
        const char *method = cls ? func + cls + 1 : func;
        uint64_t ids[4] = {class_serial(w, cls ? func : "<Unknown Class>", cls ? cls : 15),
                           name(w, method, strlen(method)), name(w, sig, strlen(sig)),
                           name(w, source, strlen(source))};
        for (int j = 0; j < 4; j++)
            if (ids[j] == UINT64_MAX) return -1;
        record(w->out, HP_FRAME, hp_frame_size(ID_SIZE));
        u8(w->out, frame_id(kind, i));
        u8(w->out, ids[1]);
        u8(w->out, ids[2]);
        u8(w->out, ids[3]);
        u4(w->out, ids[0]);
        u4(w->out, (uint32_t)f->line);
    }
    return 0;
}

static int threads(writer *w, const hp_profile_set *set)
{
    hp_idmap seen = {0};
    int rc = 0;
    for (int k = 0; k < HP_PK_NKINDS && rc == 0; k++) {
        const hp_profile *p = &set->kinds[k];
        for (size_t i = 0; i < p->thread_names.cap && rc == 0; i++) {
            if (!p->thread_names.used[i] || hp_idmap_put(&seen, p->thread_names.keys[i], 0) != 1)
                continue;
            const char *s = hp_profile_str(p, (uint32_t)p->thread_names.vals[i]);
            uint64_t id = name(w, s, strlen(s));
            if (id == UINT64_MAX) {
                rc = -1;
                break;
            }
            record(w->out, HP_START_THREAD, hp_start_thread_size(ID_SIZE));
            u4(w->out, p->thread_names.keys[i]);
            u8(w->out, p->thread_names.keys[i]); /* thread object ID */
            u4(w->out, 0);
            u8(w->out, id);
            u8(w->out, 0);
            u8(w->out, 0);
        }
    }
    hp_idmap_free(&seen);
    return rc;
}

/* TRACE records of the rows of a kind (SITES: after the class frame). */
static void traces(writer *w, const hp_profile_set *set, int kind, const uint32_t *rows, uint32_t n)
{
    const hp_profile *p = &set->kinds[kind];
    for (uint32_t r = 0; r < n; r++) {
        const hp_pstack *st = &p->stacks[rows[r]];
        const uint32_t *fr = p->stack_frames + st->first;
        uint32_t first = kind == HP_PK_SITES, count = 0;
        for (uint32_t i = first; i < st->depth; i++)
            count += (uint32_t)in_trace(p, fr[i]);
        record(w->out, HP_TRACE, HP_TRACE_FIXED_SIZE + (uint64_t)count * ID_SIZE);
        u4(w->out, hp_merge_trace(set, kind, rows[r]));
        u4(w->out, st->thread);
        u4(w->out, count);
        for (uint32_t i = first; i < st->depth; i++)
            if (in_trace(p, fr[i])) u8(w->out, frame_id(kind, fr[i]));
    }
}

static int samples(writer *w, const hp_profile_set *set)
{
    const hp_profile *p = &set->kinds[HP_PK_SAMPLES];
    uint32_t n, *rows = hp_merge_rows(p, 0, &n);
    if (!rows) return -1;
    traces(w, set, HP_PK_SAMPLES, rows, n);
    record(w->out, HP_CPU_SAMPLES, HP_CPU_SAMPLES_FIXED_SIZE + (uint64_t)n * HP_CPU_SAMPLE_SIZE);
    u4(w->out, p->total[0]);
    u4(w->out, n);
    for (uint32_t r = 0; r < n; r++) {
        u4(w->out, p->stacks[rows[r]].v[0]);
        u4(w->out, hp_merge_trace(set, HP_PK_SAMPLES, rows[r]));
    }
    free(rows);
    return 0;
}

static int sites(writer *w, const hp_profile_set *set)
{
    const hp_profile *p = &set->kinds[HP_PK_SITES];
    uint32_t n, *rows = hp_merge_rows(p, 3, &n);
    uint64_t *serial = rows ? malloc((n + 1) * sizeof *serial) : NULL;
    if (!serial) {
        free(rows);
        return -1;
    }
    for (uint32_t r = 0; r < n; r++) { /* LOAD CLASS of every class before the record */
        const hp_pstack *st = &p->stacks[rows[r]];
        const char *cls = hp_profile_str(p, p->frames[p->stack_frames[st->first]].func);
        if ((serial[r] = class_serial(w, cls, strlen(cls))) == UINT64_MAX) {
            free(rows);
            free(serial);
            return -1;
        }
    }
    traces(w, set, HP_PK_SITES, rows, n);
    record(w->out, HP_ALLOC_SITES, HP_ALLOC_SITES_FIXED_SIZE + (uint64_t)n * HP_ALLOC_SITE_SIZE);
    fputc(0, w->out); /* u2 flags */
    fputc(0, w->out);
    u4(w->out, 0); /* cutoff */
    u4(w->out, p->total[3]);
    u4(w->out, p->total[2]);
    u8(w->out, p->total[1]);
    u8(w->out, p->total[0]);
    u4(w->out, n);
    for (uint32_t r = 0; r < n; r++) {
        const uint64_t *v = p->stacks[rows[r]].v;
        fputc(0, w->out);
        u4(w->out, serial[r]);
        u4(w->out, hp_merge_trace(set, HP_PK_SITES, rows[r]));
        u4(w->out, v[3]);
        u4(w->out, v[2]);
        u4(w->out, v[1]);
        u4(w->out, v[0]);
    }
    free(rows);
    free(serial);
    return 0;
}

int hp_write_binary(FILE *out, const hp_profile_set *set, hp_error *err)
{
    if (set->present[HP_PK_TIMES] || set->present[HP_PK_OLD])
        return hp_fail(err, 0, "CPU TIME and cpu=old data have no binary form");
    writer w = {.out = out};
    hp_profile_init(&w.names, HP_PK_SAMPLES, HP_PFMT_BINARY);
    uint64_t start = set->kinds[set->present[HP_PK_SAMPLES] ? HP_PK_SAMPLES : HP_PK_SITES].start_ms;
    fwrite(HP_VERSION_1_0_2, 1, sizeof HP_VERSION_1_0_2, out); /* with its NUL */
    u4(out, ID_SIZE);
    u8(out, start);
    int rc = threads(&w, set);
    for (int k = 0; k < HP_PK_NKINDS && rc == 0; k++)
        if (set->present[k]) rc = frames(&w, &set->kinds[k], k);
    if (rc == 0 && set->present[HP_PK_SITES]) rc = sites(&w, set);
    if (rc == 0 && set->present[HP_PK_SAMPLES]) rc = samples(&w, set);
    hp_profile_free(&w.names);
    hp_idmap_free(&w.loaded);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}
