/* Minimal class-file builder for unit tests: a constant pool, and methods
 * given as raw bytecode with optional exception table and StackMapTable. */
#ifndef BCI_CLASSGEN_H
#define BCI_CLASSGEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct classgen classgen;

typedef struct {
    uint16_t start, end, handler, type;
} cg_exc;

typedef struct {
    uint16_t access;
    const char *name, *desc;
    uint16_t max_stack, max_locals;
    const uint8_t *code;
    uint32_t code_len;
    const cg_exc *exc;
    uint16_t nexc;
    const uint8_t *smt; /* StackMapTable body, or NULL */
    uint32_t smt_len;
    const char *attr_name; /* one more Code attribute, or NULL */
    const uint8_t *attr;
    uint32_t attr_len;
} cg_method;

classgen *cg_new(uint16_t major, const char *name, const char *super);
uint16_t cg_utf8(classgen *g, const char *s);
uint16_t cg_class(classgen *g, const char *name);
uint16_t cg_methodref(classgen *g, const char *cls, const char *name, const char *desc);
/* Appends n distinct filler Utf8 entries (to approach the pool limit). */
void cg_fill(classgen *g, unsigned n);
void cg_add_method(classgen *g, const cg_method *m);
/* Returns the malloc'd class bytes and frees the builder. */
uint8_t *cg_finish(classgen *g, size_t *len);
/* Adds `static void m()` with the given code and LineNumberTable (its body:
 * u2 count, then u2 start_pc and u2 line per entry), then cg_finish. */
uint8_t *cg_finish_with_lines(classgen *g, uint16_t max_stack, const uint8_t *code,
                              uint32_t code_len, const uint8_t *lnt, uint32_t lnt_len, size_t *len);

#endif
