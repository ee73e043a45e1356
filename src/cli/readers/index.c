#include "cli/readers/index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_dump_record(hp_index *ix, int open_new, uint64_t offset, hp_error *err)
{
    if (open_new) {
        hp_dump *d = realloc(ix->dumps, (ix->ndumps + 1) * sizeof *d);
        if (!d) return hp_fail(err, offset, "out of memory");
        ix->dumps = d;
        ix->dumps[ix->ndumps++] = (hp_dump){NULL, 0, UINT64_MAX};
    }
    hp_dump *d = &ix->dumps[ix->ndumps - 1];
    /* Grow geometrically: files with parallel dumps have thousands of segments. */
    if ((d->nrecords & (d->nrecords - 1)) == 0) {
        uint64_t *n = realloc(d->records, (d->nrecords ? d->nrecords * 2 : 1) * sizeof *n);
        if (!n) return hp_fail(err, offset, "out of memory");
        d->records = n;
    }
    d->records[d->nrecords++] = offset;
    return 0;
}

/* Keeps the first definition of a key; `hprof verify` reports later ones. */
static int put(hp_idmap *m, uint64_t key, uint64_t offset, hp_error *err)
{
    if (hp_idmap_get(m, key)) return 0;
    return hp_idmap_put(m, key, offset) < 0 ? hp_fail(err, offset, "out of memory") : 0;
}

int hp_index_build(hp_index *ix, const hp_file *f, int lenient, hp_error *err)
{
    memset(ix, 0, sizeof *ix);
    ix->f = f;
    ix->last_sites = ix->last_samples = UINT64_MAX;
    uint64_t pos = f->first_record;
    int open_segments = 0, rc;
    hp_record r;
    hp_rec o;
    while ((rc = hp_next_record(f, &pos, &r, err)) == 1) {
        ix->counts[r.tag]++;
        rc = 0;
        if (hp_parse_record(f, &r, &o, err)) {
            if (lenient) continue;
            return -1;
        }
        switch (r.tag) {
        case HP_UTF8:
            rc = put(&ix->strings, o.utf8.id, r.offset, err);
            break;
        case HP_LOAD_CLASS:
            rc = put(&ix->classes, o.load_class.class_id, r.offset, err) ||
                 put(&ix->serials, o.load_class.serial, r.offset, err);
            break;
        case HP_FRAME:
            rc = put(&ix->frames, o.frame.id, r.offset, err);
            break;
        case HP_TRACE:
            rc = put(&ix->traces, o.trace.serial, r.offset, err);
            break;
        case HP_START_THREAD:
            rc = put(&ix->threads, o.thread.serial, r.offset, err);
            break;
        case HP_ALLOC_SITES:
            ix->last_sites = r.offset;
            break;
        case HP_CPU_SAMPLES:
            ix->last_samples = r.offset;
            break;
        case HP_HEAP_DUMP:
            rc = add_dump_record(ix, 1, r.offset, err);
            open_segments = 0;
            break;
        case HP_HEAP_DUMP_SEGMENT:
            rc = add_dump_record(ix, !open_segments, r.offset, err);
            open_segments = 1;
            break;
        case HP_HEAP_DUMP_END:
            if (open_segments) ix->dumps[ix->ndumps - 1].end_offset = r.offset;
            open_segments = 0;
            break;
        default:
            break;
        }
        if (rc) return -1;
    }
    return rc;
}

void hp_index_free(hp_index *ix)
{
    hp_idmap_free(&ix->strings);
    hp_idmap_free(&ix->classes);
    hp_idmap_free(&ix->serials);
    hp_idmap_free(&ix->frames);
    hp_idmap_free(&ix->traces);
    hp_idmap_free(&ix->threads);
    for (size_t i = 0; i < ix->ndumps; i++)
        free(ix->dumps[i].records);
    free(ix->dumps);
    memset(ix, 0, sizeof *ix);
}

void hp_index_record(const hp_index *ix, uint64_t offset, hp_record *r, hp_rec *out)
{
    hp_error ignored;
    uint64_t pos = offset;
    hp_next_record(ix->f, &pos, r, &ignored);
    hp_parse_record(ix->f, r, out, &ignored);
}

int hp_index_string(const hp_index *ix, uint64_t id, const uint8_t **chars, uint32_t *len)
{
    const uint64_t *at = hp_idmap_get(&ix->strings, id);
    if (!at) return 0;
    hp_record r;
    hp_rec o;
    hp_index_record(ix, *at, &r, &o);
    *chars = o.utf8.chars;
    *len = o.utf8.len;
    return 1;
}

const char *hp_index_cstring(const hp_index *ix, uint64_t id, char *buf, size_t cap,
                             const char *fallback)
{
    const uint8_t *s;
    uint32_t len;
    if (!hp_index_string(ix, id, &s, &len)) {
        snprintf(buf, cap, "%s", fallback);
        return buf;
    }
    size_t n = len < cap - 1 ? len : cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static int class_name_at(const hp_index *ix, const uint64_t *at, char *buf, size_t cap)
{
    hp_record r;
    hp_rec o;
    const uint8_t *s;
    uint32_t len;
    hp_index_record(ix, *at, &r, &o);
    if (!hp_index_string(ix, o.load_class.name_id, &s, &len)) {
        snprintf(buf, cap, "<unnamed class 0x%" PRIx64 ">", o.load_class.class_id);
        return 0;
    }
    hp_java_class_name(s, len, buf, cap);
    return 1;
}

int hp_index_class_name(const hp_index *ix, uint64_t class_id, char *buf, size_t cap)
{
    const uint64_t *at = hp_idmap_get(&ix->classes, class_id);
    if (at) return class_name_at(ix, at, buf, cap);
    snprintf(buf, cap, "<unknown class 0x%" PRIx64 ">", class_id);
    return 0;
}

int hp_index_class_name_by_serial(const hp_index *ix, uint32_t serial, char *buf, size_t cap)
{
    const uint64_t *at = hp_idmap_get(&ix->serials, serial);
    if (at) return class_name_at(ix, at, buf, cap);
    snprintf(buf, cap, "<unknown class serial %u>", serial);
    return 0;
}

int hp_dump_walk(const hp_index *ix, size_t d, hp_sub_fn fn, void *ctx, hp_error *err)
{
    const hp_dump *dump = &ix->dumps[d];
    for (size_t i = 0; i < dump->nrecords; i++) {
        hp_record r;
        hp_rec o;
        hp_heap_iter it;
        hp_sub s;
        int rc;
        hp_index_record(ix, dump->records[i], &r, &o);
        hp_heap_begin(&r, &it);
        while ((rc = hp_heap_next(ix->f, &it, &s, err)) == 1)
            if ((rc = fn(ctx, &s, err)) != 0) return rc;
        if (rc < 0) return rc;
        /* A walk reads each record once: keep resident memory to about one record. */
        hp_release(ix->f, r.offset, r.offset + 9 + r.length);
    }
    return 0;
}
