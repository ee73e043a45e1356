#include "bci/insn.h"

#include "bci/buf.h"

/* Fixed lengths of opcodes 0..201; 0 marks invalid or variable-length ones. */
static const uint8_t fixed_len[202] = {
    /* 0x00 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x10 */ 2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
    /* 0x20 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x30 */ 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    /* 0x40 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x70 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x80 */ 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x90 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3,
    /* 0xa0 */ 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 0, 0, 1, 1, 1, 1,
    /* 0xb0 */ 1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 5, 3, 2, 3, 1, 1,
    /* 0xc0 */ 3, 3, 1, 1, 0, 4, 3, 3, 5, 5,
};

static uint32_t switch_length(const uint8_t *code, uint32_t len, uint32_t pc)
{
    uint32_t p = (pc + 4) & ~3u; /* operands start 4-aligned */
    uint64_t end;
    int table = code[pc] == OP_TABLESWITCH;
    if ((uint64_t)p + (table ? 12 : 8) > len) return 0;
    if (table) {
        int32_t lo = (int32_t)be_u4(code + p + 4), hi = (int32_t)be_u4(code + p + 8);
        if (hi < lo) return 0;
        end = (uint64_t)p + 12 + ((uint64_t)((int64_t)hi - lo) + 1) * 4;
    } else {
        int32_t n = (int32_t)be_u4(code + p + 4);
        if (n < 0) return 0;
        end = (uint64_t)p + 8 + (uint64_t)n * 8;
    }
    return end > len ? 0 : (uint32_t)(end - pc);
}

uint32_t insn_length(const uint8_t *code, uint32_t len, uint32_t pc)
{
    if (pc >= len) return 0;
    uint8_t op = code[pc];
    uint32_t n;
    if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) return switch_length(code, len, pc);
    if (op == OP_WIDE) {
        if (pc + 1 >= len) return 0;
        uint8_t w = code[pc + 1];
        if (w == 0x84) /* iinc */
            n = 6;
        else if ((w >= 0x15 && w <= 0x19) || (w >= 0x36 && w <= 0x3a) || w == 0xa9)
            n = 4; /* loads, stores, ret */
        else
            return 0;
    } else {
        n = op < sizeof fixed_len ? fixed_len[op] : 0;
    }
    return n && n <= len - pc ? n : 0;
}
