/* Bytecode instruction decoding: lengths, branch kinds and operands. */
#ifndef BCI_INSN_H
#define BCI_INSN_H

#include <stdint.h>

enum {
    OP_ICONST_M1 = 0x02,
    OP_ICONST_0 = 0x03,
    OP_LCONST_0 = 0x09,
    OP_BIPUSH = 0x10,
    OP_SIPUSH = 0x11,
    OP_LDC = 0x12,
    OP_LDC_W = 0x13,
    OP_LDC2_W = 0x14,
    OP_ILOAD = 0x15,
    OP_LLOAD = 0x16,
    OP_ILOAD_0 = 0x1a,
    OP_LLOAD_0 = 0x1e,
    OP_ALOAD = 0x19,
    OP_ALOAD_0 = 0x2a,
    OP_ALOAD_3 = 0x2d,
    OP_ISTORE = 0x36,
    OP_LSTORE = 0x37,
    OP_ISTORE_0 = 0x3b,
    OP_LSTORE_0 = 0x3f,
    OP_ASTORE = 0x3a,
    OP_ASTORE_0 = 0x4b,
    OP_ASTORE_3 = 0x4e,
    OP_DUP = 0x59,
    OP_IFEQ = 0x99,
    OP_IF_ACMPNE = 0xa6,
    OP_GOTO = 0xa7,
    OP_JSR = 0xa8,
    OP_TABLESWITCH = 0xaa,
    OP_LOOKUPSWITCH = 0xab,
    OP_IRETURN = 0xac,
    OP_RETURN = 0xb1,
    OP_INVOKEVIRTUAL = 0xb6,
    OP_INVOKESPECIAL = 0xb7,
    OP_INVOKESTATIC = 0xb8,
    OP_INVOKEINTERFACE = 0xb9,
    OP_NEW = 0xbb,
    OP_NEWARRAY = 0xbc,
    OP_ANEWARRAY = 0xbd,
    OP_ATHROW = 0xbf,
    OP_MONITOREXIT = 0xc3,
    OP_WIDE = 0xc4,
    OP_MULTIANEWARRAY = 0xc5,
    OP_IFNULL = 0xc6,
    OP_IFNONNULL = 0xc7,
    OP_GOTO_W = 0xc8,
    OP_JSR_W = 0xc9
};

/* Length of the instruction at pc in code[0..len), or 0 if it is invalid
 * or truncated.  Switch padding is relative to the start of code. */
uint32_t insn_length(const uint8_t *code, uint32_t len, uint32_t pc);

/* 16-bit relative branches (if*, goto, jsr). */
static inline int insn_is_branch16(uint8_t op)
{
    return (op >= OP_IFEQ && op <= OP_JSR) || op == OP_IFNULL || op == OP_IFNONNULL;
}

static inline int insn_is_return(uint8_t op)
{
    return op >= OP_IRETURN && op <= OP_RETURN;
}

/* Opcode of the opposite condition, for if* branches. */
static inline uint8_t insn_invert(uint8_t op)
{
    if (op == OP_IFNULL || op == OP_IFNONNULL) return op ^ 1;
    return (uint8_t)(((op - OP_IFEQ) ^ 1) + OP_IFEQ);
}

#endif
