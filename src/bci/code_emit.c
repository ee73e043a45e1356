/* Emitting a planned method: new layout (widening branches that overflow),
 * code, and the relocated LineNumberTable, LocalVariable(Type)Table,
 * StackMapTable and type annotations. */
#include "bci/insn.h"
#include "bci/method.h"
#include "bci/typeanno.h"

#include <stdlib.h>
#include <string.h>

static uint32_t new_length(const mctx *m, const insn_t *i, uint32_t at)
{
    uint8_t op = m->code[i->pc];
    if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
        uint32_t old_pad = 3 - (i->pc & 3), new_pad = 3 - (at & 3);
        return i->len - old_pad + new_pad;
    }
    if (i->wide) return op == OP_GOTO || op == OP_JSR ? 5 : 8; /* if!cond +8; goto_w */
    return i->len;
}

/* Whether the StackMapTable has a frame at original offset pc. */
static int has_frame(const mctx *m, uint32_t pc)
{
    uint32_t lo = 0, hi = m->smt ? m->smt->n : 0;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (m->smt->f[mid].offset < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (m->smt ? m->smt->n : 0) && m->smt->f[lo].offset == pc;
}

const char *code_layout(mctx *m)
{
    size_t sz = ((size_t)m->len + 1) * sizeof(int32_t);
    m->label = malloc(sz);
    m->opc = malloc(sz);
    if (!m->label || !m->opc) return code_fail(m, "out of memory");
    for (;;) {
        memset(m->label, 0xff, sz);
        memset(m->opc, 0xff, sz);
        uint64_t at = m->entry_len;
        for (uint32_t k = 0; k < m->n; k++) {
            insn_t *i = &m->in[k];
            m->label[i->pc] = (int32_t)at;
            at += i->pre_len;
            m->opc[i->pc] = (int32_t)at;
            at += new_length(m, i, (uint32_t)at) + i->suf_len;
            if (at > MAX_CODE) return code_fail(m, "code too large after instrumentation");
        }
        m->end = (uint32_t)at;
        m->label[m->len] = m->opc[m->len] = (int32_t)at;
        if (at + m->handler_len > MAX_CODE)
            return code_fail(m, "code too large after instrumentation");
        int grew = 0;
        for (uint32_t k = 0; k < m->n; k++) {
            insn_t *i = &m->in[k];
            if (i->wide || !insn_is_branch16(m->code[i->pc])) continue;
            int64_t d = (int64_t)m->label[code_target_of(m, i)] - m->opc[i->pc];
            if (d >= -32768 && d <= 32767) continue;
            uint8_t op = m->code[i->pc];
            /* A conditional becomes `if!cond next; goto_w target; next:`, and
             * `next` needs a frame from version 50 on: only an existing one
             * can be used (making one would need type inference). */
            uint32_t next = i->pc + i->len;
            if (op != OP_GOTO && op != OP_JSR && m->x->cf.major >= 50 && !has_frame(m, next))
                return code_fail(m, "conditional branch overflow needs a new stack map frame");
            i->wide = 1;
            grew = 1;
        }
        if (!grew) return NULL;
    }
}

static void emit_insn(mctx *m, const insn_t *i, wr_t *w)
{
    const uint8_t *c = m->code + i->pc;
    int32_t at = m->opc[i->pc];
    uint8_t op = c[0];
    if (insn_is_branch16(op)) {
        int32_t d = m->label[code_target_of(m, i)] - at;
        if (!i->wide) {
            wr_u1(w, op);
            wr_u2(w, (uint32_t)d & 0xffff);
        } else if (op == OP_GOTO || op == OP_JSR) {
            wr_u1(w, op == OP_GOTO ? OP_GOTO_W : OP_JSR_W);
            wr_u4(w, (uint32_t)d);
        } else {
            wr_u1(w, insn_invert(op));
            wr_u2(w, 8);
            wr_u1(w, OP_GOTO_W);
            wr_u4(w, (uint32_t)(d - 3));
        }
    } else if (op == OP_GOTO_W || op == OP_JSR_W) {
        wr_u1(w, op);
        wr_u4(w, (uint32_t)(m->label[code_target_of(m, i)] - at));
    } else if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
        wr_u1(w, op);
        /* Class files < 51 may have nonzero padding: kept when its size is. */
        uint32_t pad = 3 - ((uint32_t)at & 3), old_pad = 3 - (i->pc & 3);
        for (uint32_t k = 0; k < pad; k++)
            wr_u1(w, pad == old_pad ? c[1 + k] : 0);
        uint32_t p = (i->pc + 4) & ~3u, end = i->pc + i->len;
        /* Offsets sit in every 4-byte slot of a tableswitch and every second
         * slot (after each match key) of a lookupswitch. */
        for (uint32_t q = p, slot = 0; q < end; q += 4, slot++) {
            uint32_t v = be_u4(m->code + q);
            int is_offset =
                slot == 0 || (op == OP_TABLESWITCH ? slot >= 3 : slot >= 2 && slot % 2 == 1);
            if (is_offset) v = (uint32_t)(m->label[i->pc + (int32_t)v] - at);
            wr_u4(w, v);
        }
    } else {
        wr_bytes(w, c, i->len);
    }
}

void code_emit(mctx *m, wr_t *w)
{
    wr_bytes(w, m->inj.p, m->entry_len);
    for (uint32_t k = 0; k < m->n; k++) {
        const insn_t *i = &m->in[k];
        wr_bytes(w, m->inj.p + i->pre, i->pre_len);
        emit_insn(m, i, w);
        wr_bytes(w, m->inj.p + i->suf, i->suf_len);
    }
    wr_bytes(w, m->inj.p + m->handler, m->handler_len);
}

/* New offset of pc in a local-variable range: an instruction boundary maps
 * to its label; a pc inside an instruction (malformed, but the VM accepts it)
 * keeps its distance from the instruction's opcode. */
static int32_t map_loose(const mctx *m, uint32_t pc)
{
    if (pc == m->len || m->idx[pc] >= 0) return m->label[pc];
    uint32_t s = pc;
    while (m->idx[s] < 0)
        s--;
    return m->opc[s] + (int32_t)(pc - s);
}

/* Maps a [start, start+len) range; start 0 stays 0 so it covers entry code. */
static int map_range(void *ctx, uint32_t *start, uint32_t *len)
{
    const mctx *m = ctx;
    if (*start > m->len || *len > m->len - *start) return 0;
    int32_t s = *start ? map_loose(m, *start) : 0;
    int32_t e = map_loose(m, *start + *len);
    *start = (uint32_t)s;
    *len = (uint32_t)(e - s);
    return 1;
}

static int32_t map_insn(void *ctx, uint32_t pc)
{
    const mctx *m = ctx;
    return pc < m->len ? m->opc[pc] : -1;
}

/* LineNumberTable (rec 4), LocalVariable(Type)Table (rec 10): patched copies. */
static void emit_pc_table(mctx *m, const uint8_t *d, uint32_t len, uint32_t rec, wr_t *w)
{
    if (len < 2 || (size_t)be_u2(d) * rec != len - 2) {
        code_fail(m, "malformed line/variable table");
        return;
    }
    uint8_t *o = wr_space(w, len);
    if (!o) return;
    memcpy(o, d, len);
    for (uint32_t k = 0, n = be_u2(d); k < n; k++) {
        uint8_t *e = o + 2 + k * rec;
        uint32_t pc = be_u2(e), l = rec == 10 ? be_u2(e + 2) : 0;
        if (rec == 4) {
            if (pc >= m->len) return (void)code_fail(m, "LineNumberTable entry beyond code");
            put_u2(e, pc ? (uint32_t)map_loose(m, pc) : 0);
        } else if (!map_range(m, &pc, &l)) {
            return (void)code_fail(m, "bad LocalVariableTable range");
        } else {
            put_u2(e, pc);
            put_u2(e + 2, l);
        }
    }
}

void code_init_locals(const mctx *m, const cf_member *mem, uint8_t *loc, uint32_t *n)
{
    *n = 0;
    if (!(mem->access & 0x0008)) loc[(*n)++] = m->p->ctor ? VT_UNINIT_THIS : VT_OBJECT;
    const cp_ent *d = cp_get(&m->x->cf.cp, mem->desc, CP_UTF8);
    for (uint32_t i = 1; d && i < d->slen && d->s[i] != ')' && *n < 256; i++) {
        while (i < d->slen && d->s[i] == '[')
            i++;
        if (i < d->slen && d->s[i] == 'L')
            while (i < d->slen && d->s[i] != ';')
                i++;
        loc[(*n)++] = 0;
    }
}

/* The implicit initial frame's locals with their types, for full frames:
 * reference types get Class constants.  Returns how many, or -1. */
static int32_t init_vtypes(mctx *m, const cf_member *mem, smt_vt *v)
{
    cpool *cp = &m->x->cf.cp;
    uint32_t n = 0;
    if (!(mem->access & 0x0008))
        v[n++] =
            m->p->ctor ? (smt_vt){VT_UNINIT_THIS, 0} : (smt_vt){VT_OBJECT, m->x->cf.this_class};
    char *d = cp_utf8_dup(cp, mem->desc);
    if (!d || d[0] != '(') {
        free(d);
        return -1;
    }
    int32_t ret = -1;
    for (char *s = d + 1;; s++) {
        if (*s == ')') {
            ret = (int32_t)n;
            break;
        }
        char *start = s;
        while (*s == '[')
            s++;
        if (*s == 'L') s = strchr(s, ';');
        if (!s || !*s || n >= 256) break;
        if (start == s) { /* a primitive */
            if (!strchr("BCSZIFJD", *s)) break;
            v[n++] = (smt_vt){*s == 'J'   ? VT_LONG
                              : *s == 'D' ? VT_DOUBLE
                              : *s == 'F' ? VT_FLOAT
                                          : VT_INTEGER,
                              0};
            continue;
        }
        if (*s != ';' && !strchr("BCSZIFJD", *s)) break;
        /* L...; names the class inside; an array names itself. */
        int obj = *start == 'L';
        char save = s[1];
        s[1] = 0;
        if (obj) *s = 0;
        uint32_t c = cp_add_class(cp, obj ? start + 1 : start);
        if (obj) *s = ';';
        s[1] = save;
        if (!c) break;
        v[n++] = (smt_vt){VT_OBJECT, (uint16_t)c};
    }
    free(d);
    return ret;
}

/* StackMapTable with the added local: full frames. */
static const char *write_local_smt(mctx *m, const cf_member *mem, const smt_table *smt, wr_t *w)
{
    smt_vt init[257];
    int32_t n = init_vtypes(m, mem, init);
    if (n < 0) return "bad method descriptor or constant pool overflow";
    smt_vt local = {code_local_size(m) == 2 ? VT_LONG : VT_INTEGER, 0};
    return smt_write_local(smt, m->label, m->opc, m->len, init, (uint32_t)n, (uint32_t)m->local,
                           local, w);
}

void code_emit_attrs(mctx *m, const cf_member *mem, const smt_table *smt, int has_smt, wr_t *w)
{
    int add_smt = m->catch_from >= 0 && !has_smt && m->x->cf.major >= 50;
    wr_u2(w, m->nattrs + add_smt);
    rd_t r;
    rd_init(&r, m->attrs, m->attrs_len);
    const cpool *cp = &m->x->cf.cp;
    uint32_t handler_pc = m->catch_from >= 0 ? m->end : 0;
    for (uint16_t k = 0; k < m->nattrs && !m->err; k++) {
        uint32_t name = rd_u2(&r), len = rd_u4(&r);
        const uint8_t *d = rd_bytes(&r, len);
        wr_u2(w, name);
        size_t len_at = w->len;
        wr_u4(w, len);
        size_t body_at = w->len;
        if (cp_utf8_eq(cp, name, "LineNumberTable"))
            emit_pc_table(m, d, len, 4, w);
        else if (cp_utf8_eq(cp, name, "LocalVariableTable") ||
                 cp_utf8_eq(cp, name, "LocalVariableTypeTable"))
            emit_pc_table(m, d, len, 10, w);
        else if (cp_utf8_eq(cp, name, "StackMapTable")) {
            const char *e = m->local >= 0 ? write_local_smt(m, mem, smt, w)
                                          : smt_write(smt, m->label, m->opc, m->len, handler_pc,
                                                      (uint16_t)m->x->throwable, w);
            if (e) code_fail(m, e);
        } else if (cp_utf8_eq(cp, name, "StackMap")) {
            if (m->local >= 0) code_fail(m, "CLDC StackMap with an added local");
            const char *e = smap_write(d, len, m->label, m->opc, m->len, w);
            if (e) code_fail(m, e);
        } else if (cp_utf8_eq(cp, name, "RuntimeVisibleTypeAnnotations") ||
                   cp_utf8_eq(cp, name, "RuntimeInvisibleTypeAnnotations")) {
            uint8_t *o = wr_space(w, len);
            const char *e =
                o ? (memcpy(o, d, len), ta_relocate(o, len, m, map_range, map_insn)) : NULL;
            if (e) code_fail(m, e);
        } else {
            wr_bytes(w, d, len);
        }
        if (!w->err) put_u4(w->p + len_at, (uint32_t)(w->len - body_at));
    }
    if (add_smt && !m->err) {
        wr_u2(w, m->x->smt_name);
        size_t len_at = w->len;
        wr_u4(w, 0);
        smt_table none = {0};
        smt_write(&none, m->label, m->opc, m->len, handler_pc, (uint16_t)m->x->throwable, w);
        if (!w->err) put_u4(w->p + len_at, (uint32_t)(w->len - len_at - 4));
    }
}
