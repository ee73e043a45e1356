/*
 * Bounds-checked HPROF reader over a read-only mapping of the whole file.
 * Nothing is copied: records and sub-records point into the mapping, so
 * memory use is independent of file size. Every read is checked against the
 * end of the enclosing record; failures carry the absolute file offset.
 */
#ifndef HPROF_CLI_READER_H
#define HPROF_CLI_READER_H

#include <stddef.h>
#include <stdint.h>

#include "cli/readers/class_names.h"
#include "format/bytes.h"

typedef struct {
    uint64_t offset; /* absolute file offset the problem was found at */
    char what[240];
} hp_error;

typedef struct {
    const char *path;    /* as given by the user; used in messages */
    const uint8_t *base; /* whole file */
    uint64_t size;
    int mapped;            /* base must be munmap()ed on close */
    char version[24];      /* "JAVA PROFILE 1.0.x" */
    uint32_t id_size;      /* 4 or 8 */
    uint64_t timestamp_ms; /* header time stamp, ms since the epoch */
    uint64_t first_record; /* offset of the first record */
} hp_file;

typedef struct {
    uint8_t tag;
    uint32_t time;   /* microseconds since the header time stamp */
    uint32_t length; /* body bytes */
    uint64_t offset; /* of the tag byte */
    const uint8_t *body;
} hp_record;

/* Fields of one top-level record, decoded by hp_parse_record(). */
typedef struct {
    union {
        struct {
            uint64_t id;
            const uint8_t *chars;
            uint32_t len;
        } utf8;
        struct {
            uint32_t serial, trace;
            uint64_t class_id, name_id;
        } load_class;
        struct {
            uint32_t serial; /* UNLOAD CLASS and END THREAD */
        } serial;
        struct {
            uint64_t id, method_id, sig_id, source_id;
            uint32_t class_serial;
            int32_t line;
        } frame;
        struct {
            uint32_t serial, thread, nframes;
            const uint8_t *frames;
        } trace;
        struct {
            uint16_t flags;
            uint32_t cutoff, live_bytes, live_instances, nsites;
            uint64_t alloc_bytes, alloc_instances;
            const uint8_t *sites;
        } sites;
        struct {
            uint32_t live_bytes, live_instances;
            uint64_t alloc_bytes, alloc_instances;
        } summary;
        struct {
            uint32_t serial, trace;
            uint64_t object_id, name_id, group_id, parent_id;
        } thread;
        struct {
            uint32_t total, ntraces;
            const uint8_t *traces;
        } samples;
        struct {
            uint32_t flags;
            uint16_t depth;
        } control;
    };
} hp_rec;

typedef struct {
    uint8_t array_type;
    uint32_t class_serial, trace, live_bytes, live_instances, alloc_bytes, alloc_instances;
} hp_site;

/*
 * One heap dump sub-record. Which fields are set depends on the tag:
 *  roots:         id = object; thread, depth (JNI LOCAL, JAVA FRAME, JNI MONITOR:
 *                 frame number; THREAD OBJECT: stack trace serial);
 *                 ref = JNI global ref ID (JNI GLOBAL)
 *  HEAP DUMP INFO: thread = heap type, id = heap name string ID
 *  CLASS DUMP:    id, trace, ref = super class, loader/signers/domain,
 *                 instance_size, the three lists
 *  INSTANCE:      id, trace, ref = class, data/data_len = field values
 *  OBJ ARRAY:     id, trace, count, ref = array class, data = elements
 *  PRIM ARRAY:    id, trace, count, elem_type, data (NODATA: data_len 0)
 */
typedef struct {
    uint8_t tag;
    uint64_t offset;
    uint64_t id, ref;
    uint32_t thread, depth, trace, count;
    uint8_t elem_type;
    const uint8_t *data;
    uint64_t data_len;
    uint64_t loader, signers, domain;
    uint32_t instance_size;
    uint16_t ncp, nstatics, nfields;
    const uint8_t *cp, *statics, *fields;
} hp_sub;

/* One entry of a CLASS DUMP list (constant pool, statics or instance fields). */
typedef struct {
    uint16_t cp_index; /* constant pool only */
    uint64_t name_id;  /* statics and instance fields */
    uint8_t type;
    uint64_t value; /* constant pool and statics; zero-extended */
} hp_field;

typedef struct {
    const uint8_t *p, *end;
    uint8_t record_tag;
    uint64_t record_offset; /* for messages */
} hp_heap_iter;

/* Formats an error; always returns -1 so callers can `return hp_fail(...)`. */
int hp_fail(hp_error *err, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Maps the file read-only without looking at its content. Returns 0 or -1
 * (f->base is NULL then). */
int hp_map_file(hp_file *f, const char *path, hp_error *err);
/* Maps the file read-only (a gzipped one inflated first, see gunzip.h) and
 * parses the header. Returns 0 or -1. */
int hp_open(hp_file *f, const char *path, hp_error *err);
/* Uses a caller-owned buffer instead of a file (tests, fuzzing). */
int hp_open_mem(hp_file *f, const char *name, const uint8_t *buf, size_t len, hp_error *err);
void hp_close(hp_file *f);
/* Drops the mapped pages of [from, to) from this process's memory once a pass
 * is done with them (they stay in the page cache and fault back on use). */
void hp_release(const hp_file *f, uint64_t from, uint64_t to);

/*
 * Reads the record header at *pos and advances *pos past the body.
 * Returns 1 for a record, 0 at end of file, -1 if the header is truncated or
 * the body runs past the end of the file. Tags are not judged here.
 */
int hp_next_record(const hp_file *f, uint64_t *pos, hp_record *r, hp_error *err);

/*
 * Decodes a non-heap record and checks that its length matches its content
 * exactly. Unknown tags and heap-dump tags are rejected.
 */
int hp_parse_record(const hp_file *f, const hp_record *r, hp_rec *out, hp_error *err);

/* Element accessors for records already accepted by hp_parse_record(). */
uint64_t hp_trace_frame(const hp_file *f, const hp_rec *trace, uint32_t i);
void hp_site_at(const hp_rec *sites, uint32_t i, hp_site *out);
void hp_sample_at(const hp_rec *samples, uint32_t i, uint32_t *count, uint32_t *trace);

/* Decodes the sub-record at an absolute file offset, bounded by the end of the
 * file (for offsets an index recorded). Returns 1, or -1 with *err set. */
int hp_sub_at(const hp_file *f, uint64_t offset, hp_sub *s, hp_error *err);

/* Iterates the sub-records of a HEAP DUMP or HEAP DUMP SEGMENT record. */
void hp_heap_begin(const hp_record *r, hp_heap_iter *it);
/* Returns 1 with *s filled, 0 at the end of the record, -1 on malformed data. */
int hp_heap_next(const hp_file *f, hp_heap_iter *it, hp_sub *s, hp_error *err);

/*
 * Walks a CLASS DUMP list validated by hp_heap_next(). *p starts at
 * s->cp, s->statics or s->fields; each call decodes one entry and advances.
 */
void hp_next_cp(const hp_file *f, const uint8_t **p, hp_field *out);
void hp_next_static(const hp_file *f, const uint8_t **p, hp_field *out);
void hp_next_field(const hp_file *f, const uint8_t **p, hp_field *out);

static inline uint64_t hp_id(const hp_file *f, const uint8_t *p)
{
    return f->id_size == 4 ? hp_be32(p) : hp_be64(p);
}
/* Reads a value of `size` bytes (1, 2, 4 or 8), zero-extended. */
uint64_t hp_value(const uint8_t *p, unsigned size);

#endif
