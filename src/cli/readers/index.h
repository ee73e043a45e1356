/*
 * Indexes of the non-heap records of a file: strings, classes, frames,
 * traces, threads, and where each heap dump's records are. Values are file
 * offsets of records, so the index stays small next to the mapping.
 */
#ifndef HPROF_CLI_INDEX_H
#define HPROF_CLI_INDEX_H

#include "cli/readers/idmap.h"
#include "cli/readers/reader.h"

/* One heap dump: a HEAP DUMP record, or a run of SEGMENTs up to HEAP DUMP END. */
typedef struct {
    uint64_t *records; /* offsets of the HEAP DUMP / SEGMENT records */
    size_t nrecords;
    uint64_t end_offset; /* HEAP DUMP END record, or UINT64_MAX if none */
} hp_dump;

typedef struct {
    const hp_file *f;
    uint64_t counts[256]; /* records per tag */
    hp_idmap strings;     /* UTF8 id -> record offset */
    hp_idmap classes;     /* class object id -> LOAD CLASS offset */
    hp_idmap serials;     /* class serial -> LOAD CLASS offset */
    hp_idmap frames;      /* frame id -> FRAME offset */
    hp_idmap traces;      /* trace serial -> TRACE offset */
    hp_idmap threads;     /* thread serial -> START THREAD offset */
    hp_dump *dumps;
    size_t ndumps;
    uint64_t last_sites, last_samples; /* record offsets, or UINT64_MAX */
} hp_index;

/* Reads every record once. On malformed input returns -1 with *err set;
 * with `lenient`, records whose body does not decode are skipped instead
 * (only a broken record header or length is then fatal). */
int hp_index_build(hp_index *ix, const hp_file *f, int lenient, hp_error *err);
void hp_index_free(hp_index *ix);

/* Re-reads an indexed record (cannot fail for offsets the index produced). */
void hp_index_record(const hp_index *ix, uint64_t offset, hp_record *r, hp_rec *out);

/* Looks up a UTF8 string; returns 0 if absent. */
int hp_index_string(const hp_index *ix, uint64_t id, const uint8_t **chars, uint32_t *len);
/* Writes the string into buf (truncated, NUL-terminated), or `fallback` if absent. */
const char *hp_index_cstring(const hp_index *ix, uint64_t id, char *buf, size_t cap,
                             const char *fallback);
/* Java-form class name by class object ID or class serial; 0 if unknown (buf gets a
 * placeholder naming the ID). */
int hp_index_class_name(const hp_index *ix, uint64_t class_id, char *buf, size_t cap);
int hp_index_class_name_by_serial(const hp_index *ix, uint32_t serial, char *buf, size_t cap);

/* Calls fn for every sub-record of dump d, in file order; stops on error or
 * when fn returns non-zero (that value is returned). */
typedef int (*hp_sub_fn)(void *ctx, const hp_sub *s, hp_error *err);
int hp_dump_walk(const hp_index *ix, size_t d, hp_sub_fn fn, void *ctx, hp_error *err);

#endif
