/* Constant pool: decoded entries (all tags of class files 45..69), lookups,
 * appending new entries, and re-encoding. */
#ifndef BCI_CPOOL_H
#define BCI_CPOOL_H

#include "bci/buf.h"

enum {
    CP_UTF8 = 1,
    CP_INTEGER = 3,
    CP_FLOAT = 4,
    CP_LONG = 5,
    CP_DOUBLE = 6,
    CP_CLASS = 7,
    CP_STRING = 8,
    CP_FIELDREF = 9,
    CP_METHODREF = 10,
    CP_IMETHODREF = 11,
    CP_NAMEANDTYPE = 12,
    CP_METHODHANDLE = 15,
    CP_METHODTYPE = 16,
    CP_DYNAMIC = 17,
    CP_INVOKEDYNAMIC = 18,
    CP_MODULE = 19,
    CP_PACKAGE = 20
};

typedef struct {
    uint8_t tag;      /* 0: unusable slot (index 0, second half of long/double) */
    uint8_t kind;     /* MethodHandle reference_kind */
    uint16_t a, b;    /* index operands */
    uint32_t hi, lo;  /* Integer/Float: lo; Long/Double: hi, lo */
    const uint8_t *s; /* Utf8 bytes (not NUL-terminated) */
    uint16_t slen;
} cp_ent;

typedef struct {
    cp_ent *e;
    uint32_t n, cap, orig_n; /* n: constant_pool_count (entries 1..n-1) */
    char **owned;            /* Utf8 text of appended entries */
    uint32_t nowned;
} cpool;

/* 0 on success, else a static error message. */
const char *cp_parse(cpool *cp, rd_t *r);
void cp_free(cpool *cp);
void cp_write(const cpool *cp, wr_t *w);

/* Entry idx if it exists with the given tag, else NULL. */
const cp_ent *cp_get(const cpool *cp, uint32_t idx, int tag);
/* Utf8 at idx as a malloc'd NUL-terminated copy (NULL if absent). */
char *cp_utf8_dup(const cpool *cp, uint32_t idx);
int cp_utf8_eq(const cpool *cp, uint32_t idx, const char *s);
/* Utf8 name of the Class entry at idx (not NUL-terminated) or NULL. */
const uint8_t *cp_class_name(const cpool *cp, uint32_t idx, uint16_t *len);

/* Appenders return the new (or reused appended) index, or 0 when the pool
 * would overflow its u2 count or memory runs out. */
uint32_t cp_add_utf8(cpool *cp, const char *s);
uint32_t cp_add_class(cpool *cp, const char *name);
uint32_t cp_add_int(cpool *cp, int32_t v);
uint32_t cp_add_long(cpool *cp, int64_t v);
uint32_t cp_add_methodref(cpool *cp, const char *cls, const char *name, const char *desc);

#endif
