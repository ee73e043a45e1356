/* Decoding a method's Code: instructions, branch targets, exception table. */
#include "bci/insn.h"
#include "bci/method.h"

#include <stdlib.h>
#include <string.h>

int32_t code_target_of(const mctx *m, const insn_t *i)
{
    const uint8_t *c = m->code + i->pc;
    if (c[0] == OP_GOTO_W || c[0] == OP_JSR_W) return (int32_t)i->pc + (int32_t)be_u4(c + 1);
    return (int32_t)i->pc + (int16_t)be_u2(c + 1);
}

static int valid_target(const mctx *m, int64_t t)
{
    return t >= 0 && t < m->len && m->idx[t] >= 0;
}

int code_each_target(const mctx *m, const insn_t *i,
                     int (*fn)(const mctx *, const insn_t *, int64_t, void *), void *arg)
{
    uint8_t op = m->code[i->pc];
    if (insn_is_branch16(op) || op == OP_GOTO_W || op == OP_JSR_W)
        return fn(m, i, code_target_of(m, i), arg);
    if (op != OP_TABLESWITCH && op != OP_LOOKUPSWITCH) return 1;
    uint32_t p = (i->pc + 4) & ~3u;
    if (!fn(m, i, (int64_t)i->pc + (int32_t)be_u4(m->code + p), arg)) return 0;
    uint32_t k, step, first;
    if (op == OP_TABLESWITCH) {
        k = (uint32_t)((int32_t)be_u4(m->code + p + 8) - (int32_t)be_u4(m->code + p + 4)) + 1;
        first = p + 12;
        step = 4;
    } else {
        k = be_u4(m->code + p + 4);
        first = p + 12;
        step = 8;
    }
    for (uint32_t j = 0; j < k; j++)
        if (!fn(m, i, (int64_t)i->pc + (int32_t)be_u4(m->code + first + j * step), arg)) return 0;
    return 1;
}

static int check_target(const mctx *m, const insn_t *i, int64_t t, void *arg)
{
    (void)i;
    (void)arg;
    return valid_target(m, t);
}

const char *code_decode(mctx *m)
{
    m->idx = malloc(((size_t)m->len + 1) * sizeof *m->idx);
    m->in = malloc((size_t)m->len * sizeof *m->in);
    if (!m->idx || !m->in) return code_fail(m, "out of memory");
    memset(m->idx, 0xff, ((size_t)m->len + 1) * sizeof *m->idx);
    for (uint32_t pc = 0; pc < m->len;) {
        uint32_t l = insn_length(m->code, m->len, pc);
        if (!l) return code_fail(m, "invalid or truncated instruction");
        m->idx[pc] = (int32_t)m->n;
        m->in[m->n++] = (insn_t){.pc = pc, .len = l};
        pc += l;
    }
    for (uint32_t k = 0; k < m->n; k++)
        if (!code_each_target(m, &m->in[k], check_target, NULL))
            return code_fail(m, "branch target is not an instruction");
    for (uint32_t e = 0; e < m->nexc; e++) {
        const uint8_t *x = m->exc + e * 8;
        uint32_t s = be_u2(x), t = be_u2(x + 2), h = be_u2(x + 4);
        if (!valid_target(m, s) || !valid_target(m, h) || t <= s || t > m->len ||
            (t < m->len && m->idx[t] < 0))
            return code_fail(m, "bad exception table entry");
        m->in[m->idx[h]].handler = 1;
    }
    return NULL;
}
