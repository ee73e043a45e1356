/* One method's rewrite, shared by code.c (the driver: parse, finish),
 * code_decode.c (instructions and branch targets), code_plan.c (what to
 * inject where) and code_emit.c (new layout, code and attributes). */
#ifndef BCI_METHOD_H
#define BCI_METHOD_H

#include "bci/buf.h"
#include "bci/code.h"
#include "bci/stackmap.h"

#include <stdint.h>

#define MAX_CODE 65535

typedef struct {
    uint32_t pc, len;
    uint32_t pre, pre_len; /* injected before the instruction (offsets into inj) */
    uint32_t suf, suf_len; /* injected after it */
    uint32_t resume_len;   /* the prefix's leading resume call, at a handler */
    uint8_t wide;          /* 16-bit branch rewritten with goto_w */
    uint8_t handler;       /* an exception handler starts here */
} insn_t;

typedef struct {
    rw_ctx *x;
    const method_plan *p;
    const char *err;
    uint16_t max_stack, max_locals;
    const uint8_t *code;
    uint32_t len;
    const uint8_t *exc;
    uint16_t nexc, nattrs;
    const uint8_t *attrs; /* raw Code attributes */
    uint32_t attrs_len;
    insn_t *in;
    uint32_t n;
    int32_t *idx;   /* pc -> instruction index, -1 inside or outside instructions */
    int32_t *label; /* pc -> new offset of the instruction's injected prefix */
    int32_t *opc;   /* pc -> new offset of the instruction itself */
    wr_t inj;       /* injected code fragments */
    uint32_t entry_len, handler, handler_len; /* catch-all handler fragment */
    int64_t catch_from; /* original pc the catch-all range starts at, -1: none */
    int32_t local;      /* entry_local: index of the added local, -1: none */
    uint32_t end;       /* new offset of the end of the original code */
    int injected;
    /* Operand stack the injected code needs: above the original code's
     * stack where it runs (rel), or in all (abs, at a known depth). */
    uint16_t stack_rel, stack_abs;
    const smt_table *smt; /* decoded StackMapTable, or NULL */
    int32_t *lines;       /* original offset -> line (calls.h) */
} mctx;

/* Records the first failure; returns it. */
static inline const char *code_fail(mctx *m, const char *why)
{
    if (!m->err) m->err = why;
    return m->err;
}

/* Slots of the added local: 2 for a long. */
static inline uint16_t code_local_size(const mctx *m)
{
    return m->x->h->entry_local == BCI_LOCAL_LONG ? 2 : 1;
}

/* The line of original offset pc, 0 if none. */
static inline int32_t code_line_of(const mctx *m, uint32_t pc)
{
    return m->lines && pc < m->len ? m->lines[pc] : 0;
}

/* code_decode.c: splits the code into instructions and checks branch
 * targets and the exception table; NULL or the failure. */
const char *code_decode(mctx *m);
/* The target of a 16- or 32-bit branch instruction. */
int32_t code_target_of(const mctx *m, const insn_t *i);
/* Visits every branch/switch target of instruction i; stops on first 0. */
int code_each_target(const mctx *m, const insn_t *i,
                     int (*fn)(const mctx *, const insn_t *, int64_t, void *), void *arg);

/* code_plan.c: the injected fragments before and after every instruction,
 * at entry and in the catch-all handler, into m->inj. */
void code_plan(mctx *m, const smt_table *smt);

/* code_emit.c: new offsets of every instruction, widening branches that
 * overflow; NULL or the failure. */
const char *code_layout(mctx *m);
/* The new code: fragments and relocated instructions. */
void code_emit(mctx *m, wr_t *w);
/* The Code attribute's own attributes, offsets relocated. */
void code_emit_attrs(mctx *m, const cf_member *mem, const smt_table *smt, int has_smt, wr_t *w);
/* The implicit initial frame's locals of method mem. */
void code_init_locals(const mctx *m, const cf_member *mem, uint8_t *loc, uint32_t *n);

#endif
