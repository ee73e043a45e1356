/*
 * Where the large arrays of a heap analysis go while it is built: into the
 * on-disk index file as soon as each is final (store.h), so the process holds
 * only what the current step works on; the finished file is then mapped. With
 * no file (fd < 0: --no-index, nowhere writable, in-memory dumps) the arrays
 * simply stay in memory.
 */
#ifndef HPROF_CLI_HEAP_SPILL_H
#define HPROF_CLI_HEAP_SPILL_H

#include <stddef.h>
#include <stdint.h>

/* The arrays of an index, in no particular file order. */
enum {
    HP_SEC_KEYS,
    HP_SEC_SEGS,
    HP_SEC_DIR,
    HP_SEC_OFFSETS,
    HP_SEC_SHALLOW,
    HP_SEC_OUT_START,
    HP_SEC_OUT,
    HP_SEC_ROOTS,
    HP_SEC_CLASSES,
    HP_SEC_PRE,
    HP_SEC_VERTEX,
    HP_SEC_IDOM,
    HP_SEC_RETAINED,
    HP_SEC_REACHABLE,
    HP_SEC_CLASSOF,  /* what each object is (graph.h) */
    HP_SEC_HISTO,    /* findings.h: the class histogram with retained sizes */
    HP_SEC_WASTE,    /* waste per kind */
    HP_SEC_DUPS,     /* duplicate strings */
    HP_SEC_SUSPECTS, /* suspects */
    HP_NSECTIONS
};

typedef struct {
    uint64_t at, bytes; /* file offset (8-aligned) and length */
} hp_section;

typedef struct {
    int fd;      /* the index being written, or -1: keep arrays in memory */
    uint64_t at; /* end of what is written */
    hp_section sec[HP_NSECTIONS];
    int failed; /* a write failed: nothing more is dropped, the build is redone in memory */
} hp_spill;

/* Bytes before the first section: the header's room (store.c). */
extern const size_t hp_spill_header_bytes;

/* A spill into fd (-1 for memory only). */
void hp_spill_init(hp_spill *s, int fd);
/* Writes an array as section `sec` (nothing without a file); 0 or -1. */
int hp_spill_save(hp_spill *s, int sec, const void *array, size_t bytes);
/* Appends to section `sec`, written piece by piece while no other is saved. */
int hp_spill_append(hp_spill *s, int sec, const void *array, size_t bytes);
/* Writes the header at the start of the file (bytes <= hp_spill_header_bytes). */
int hp_spill_write_header(hp_spill *s, const void *header, size_t bytes);
/* Frees an array that is saved (nothing without a file, where it stays in use). */
void hp_spill_drop(const hp_spill *s, void *array_ptr);
/* Save, then drop. */
int hp_spill_put(hp_spill *s, int sec, void *array_ptr, size_t bytes);
/* Bytes [from, from + len) of section `sec`: from `in_memory` if it is still
 * there, else read into buf. NULL on a read error. */
const void *hp_spill_read(const hp_spill *s, int sec, const void *in_memory, size_t from,
                          size_t len, void *buf);

#endif
