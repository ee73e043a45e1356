/* Class-file structure: header, constant pool, members and attributes.
 * Attributes are kept as slices of the input; the writer re-emits them,
 * substituting replaced Code attributes. */
#ifndef BCI_CLASSFILE_H
#define BCI_CLASSFILE_H

#include "bci/cpool.h"

#define CF_MIN_MAJOR 45
#define CF_MAX_MAJOR 69

typedef struct {
    uint16_t name;
    uint32_t len;
    const uint8_t *data;
} cf_attr;

typedef struct {
    uint16_t access, name, desc;
    uint16_t nattrs;
    cf_attr *attrs;
    /* Replacement for the Code attribute body (malloc'd), if rewritten. */
    uint8_t *new_code;
    uint32_t new_code_len;
} cf_member;

typedef struct {
    uint16_t minor, major;
    cpool cp;
    uint16_t access, this_class, super_class;
    uint16_t ninterfaces;
    const uint8_t *interfaces;
    uint16_t nfields, nmethods, nattrs;
    cf_member *fields, *methods;
    cf_attr *attrs;
} classfile;

/* NULL on success, else a static error message; cf_free in both cases. */
const char *cf_parse(classfile *cf, const uint8_t *p, size_t len);
void cf_free(classfile *cf);
void cf_write(const classfile *cf, wr_t *w);

#endif
