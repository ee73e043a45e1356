/* StackMapTable: decoding, relocation of frame offsets and Uninitialized(pc)
 * operands, and re-encoding with the original frame kinds where they fit. */
#ifndef BCI_STACKMAP_H
#define BCI_STACKMAP_H

#include "bci/buf.h"

enum {
    VT_TOP = 0,
    VT_INTEGER = 1,
    VT_FLOAT = 2,
    VT_DOUBLE = 3,
    VT_LONG = 4,
    VT_UNINIT_THIS = 6,
    VT_OBJECT = 7,
    VT_UNINIT = 8
};

/* A verification type: tag, and its cpool index or Uninitialized offset. */
typedef struct {
    uint8_t tag;
    uint16_t data;
} smt_vt;

typedef struct {
    uint32_t offset;     /* bytecode offset in the original code */
    uint8_t type;        /* frame_type byte */
    uint8_t uninit_this; /* some local is uninitializedThis at this frame */
    const uint8_t *body; /* verification types following offset_delta */
    uint32_t body_len;
} smt_frame;

typedef struct {
    smt_frame *f;
    uint32_t n;
} smt_table;

/* Decodes a StackMapTable body.  init_locals/n_init: tags of the implicit
 * initial frame's locals (only VT_UNINIT_THIS matters), used to track
 * uninit_this through chop/append/same frames.  NULL on success. */
const char *smt_parse(smt_table *t, const uint8_t *data, uint32_t len, uint32_t code_len,
                      const uint8_t *init_locals, uint32_t n_init);
void smt_free(smt_table *t);

/* Writes the relocated table (attribute body only).  label[pc]: new offset a
 * frame at pc moves to; insn[pc]: new offset of the instruction at pc (for
 * Uninitialized(pc)); -1 where pc is not an instruction.  If handler_pc is
 * nonzero, appends a full frame there for a catch-all handler: no locals,
 * stack [Object(throwable_cp)].  NULL on success. */
const char *smt_write(const smt_table *t, const int32_t *label, const int32_t *insn,
                      uint32_t code_len, uint32_t handler_pc, uint16_t throwable_cp, wr_t *w);

/* As smt_write without a catch-all, every frame written as a full frame
 * whose locals end with `local` (Integer or Long) at slot `slot` (Top-padded
 * before it), for a local the rewriter added.  init/n_init: the implicit
 * initial frame's locals.  NULL on success. */
const char *smt_write_local(const smt_table *t, const int32_t *label, const int32_t *insn,
                            uint32_t code_len, const smt_vt *init, uint32_t n_init, uint32_t slot,
                            smt_vt local, wr_t *w);

/* Relocates a CLDC-style StackMap attribute body (u2 count, then full frames
 * with absolute u2 offsets), as found in some pre-Java 6 class files. */
const char *smap_write(const uint8_t *data, uint32_t len, const int32_t *label, const int32_t *insn,
                       uint32_t code_len, wr_t *w);

#endif
