#include "bci/stackmap.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LOCALS 65536

/* One verification type: its tag, and the operand of Object and
 * Uninitialized. */
static smt_vt get_vtype(rd_t *r)
{
    smt_vt v = {.tag = (uint8_t)rd_u1(r)};
    if (v.tag == VT_OBJECT || v.tag == VT_UNINIT) v.data = (uint16_t)rd_u2(r);
    return v;
}

/* Skips one verification type; returns its tag or -1. */
static int skip_vtype(rd_t *r)
{
    smt_vt v = get_vtype(r);
    return r->err || v.tag > VT_UNINIT ? -1 : v.tag;
}

/* Locals of the current frame: only their tags matter, and how many of them
 * are uninitializedThis (kept as a count so every frame costs O(its size)). */
typedef struct {
    uint8_t *tag;
    uint32_t n, cap, uninit;
} locals_t;

/* Reads k types, appending their tags to l (if non-NULL). */
static int read_vtypes(rd_t *r, uint32_t k, locals_t *l)
{
    for (uint32_t i = 0; i < k; i++) {
        int tag = skip_vtype(r);
        if (tag < 0) return 0;
        if (l) {
            if (l->n >= l->cap) return 0;
            l->tag[l->n++] = (uint8_t)tag;
            l->uninit += tag == VT_UNINIT_THIS;
        }
    }
    return 1;
}

const char *smt_parse(smt_table *t, const uint8_t *data, uint32_t len, uint32_t code_len,
                      const uint8_t *init_locals, uint32_t n_init)
{
    memset(t, 0, sizeof *t);
    rd_t r;
    rd_init(&r, data, len);
    uint32_t n = rd_u2(&r);
    if (r.err || (size_t)n > len) return "bad StackMapTable count";
    t->f = calloc(n ? n : 1, sizeof *t->f);
    /* Each appended local takes at least one byte of the attribute. */
    locals_t l = {.cap = n_init + len < MAX_LOCALS ? n_init + len : MAX_LOCALS};
    l.tag = malloc(l.cap);
    if (!t->f || !l.tag) {
        free(l.tag);
        return "out of memory";
    }
    for (uint32_t i = 0; i < n_init && i < l.cap; i++) {
        l.tag[l.n++] = init_locals[i];
        l.uninit += init_locals[i] == VT_UNINIT_THIS;
    }
    const char *err = NULL;
    int64_t pc = -1;
    for (uint32_t i = 0; i < n && !err; i++) {
        smt_frame *f = &t->f[i];
        uint32_t type = rd_u1(&r), delta;
        if (type < 64)
            delta = type;
        else if (type < 128)
            delta = type - 64;
        else if (type >= 247)
            delta = rd_u2(&r);
        else {
            err = "reserved StackMapTable frame type";
            break;
        }
        f->type = (uint8_t)type;
        f->body = r.p + r.pos;
        pc += (int64_t)delta + 1;
        if (pc >= code_len) {
            err = "StackMapTable frame beyond code";
            break;
        }
        f->offset = (uint32_t)pc;
        int ok = 1;
        if ((type >= 64 && type <= 127) || type == 247)
            ok = read_vtypes(&r, 1, NULL);
        else if (type >= 248 && type <= 250) {
            uint32_t k = 251 - type;
            if (k > l.n) ok = 0;
            for (; ok && k > 0; k--)
                l.uninit -= l.tag[--l.n] == VT_UNINIT_THIS;
        } else if (type >= 252 && type <= 254)
            ok = read_vtypes(&r, type - 251, &l);
        else if (type == 255) {
            l.n = l.uninit = 0;
            ok = read_vtypes(&r, rd_u2(&r), &l) && read_vtypes(&r, rd_u2(&r), NULL);
        }
        if (!ok || r.err) {
            err = "malformed StackMapTable frame";
            break;
        }
        f->body_len = (uint32_t)(r.p + r.pos - f->body);
        f->uninit_this = l.uninit > 0;
        t->n = i + 1;
    }
    free(l.tag);
    if (!err && r.pos != len) err = "StackMapTable length mismatch";
    return err;
}

void smt_free(smt_table *t)
{
    free(t->f);
    memset(t, 0, sizeof *t);
}

/* Writes v, relocating an Uninitialized(pc) operand; 0 if pc is not an
 * instruction. */
static int put_vtype(wr_t *w, smt_vt v, const int32_t *insn, uint32_t code_len)
{
    wr_u1(w, v.tag);
    if (v.tag == VT_OBJECT)
        wr_u2(w, v.data);
    else if (v.tag == VT_UNINIT) {
        if (v.data >= code_len || insn[v.data] < 0) return 0;
        wr_u2(w, (uint32_t)insn[v.data]);
    }
    return 1;
}

/* Copies types from r to w, relocating Uninitialized(pc) operands. */
static int copy_vtypes(rd_t *r, wr_t *w, uint32_t k, const int32_t *insn, uint32_t code_len)
{
    for (uint32_t i = 0; i < k; i++)
        if (!put_vtype(w, get_vtype(r), insn, code_len)) return 0;
    return !r->err;
}

const char *smt_write(const smt_table *t, const int32_t *label, const int32_t *insn,
                      uint32_t code_len, uint32_t handler_pc, uint16_t throwable_cp, wr_t *w)
{
    wr_u2(w, t->n + (handler_pc != 0));
    int64_t prev = -1;
    for (uint32_t i = 0; i < t->n; i++) {
        const smt_frame *f = &t->f[i];
        if (label[f->offset] < 0) return "StackMapTable frame not at an instruction";
        uint32_t delta = (uint32_t)(label[f->offset] - prev - 1);
        prev = label[f->offset];
        uint8_t type = f->type;
        if (type < 64 && delta >= 64)
            type = 251; /* same_frame_extended */
        else if (type >= 64 && type < 128 && delta >= 64)
            type = 247; /* same_locals_1_stack_item_extended */
        if (type < 64)
            wr_u1(w, delta);
        else if (type < 128)
            wr_u1(w, 64 + delta);
        else {
            wr_u1(w, type);
            wr_u2(w, delta);
        }
        rd_t r;
        rd_init(&r, f->body, f->body_len);
        int ok = 1;
        if (f->type >= 64 && f->type <= 127)
            ok = copy_vtypes(&r, w, 1, insn, code_len);
        else if (f->type == 247)
            ok = copy_vtypes(&r, w, 1, insn, code_len);
        else if (f->type >= 252 && f->type <= 254)
            ok = copy_vtypes(&r, w, f->type - 251u, insn, code_len);
        else if (f->type == 255) {
            uint32_t k = rd_u2(&r);
            wr_u2(w, k);
            ok = copy_vtypes(&r, w, k, insn, code_len);
            k = rd_u2(&r);
            wr_u2(w, k);
            ok = ok && copy_vtypes(&r, w, k, insn, code_len);
        }
        if (!ok) return "bad Uninitialized offset in StackMapTable";
    }
    if (handler_pc) {
        wr_u1(w, 255);
        wr_u2(w, (uint32_t)(handler_pc - prev - 1));
        wr_u2(w, 0);
        wr_u2(w, 1);
        wr_u1(w, VT_OBJECT);
        wr_u2(w, throwable_cp);
    }
    return w->err ? "output too large" : NULL;
}

const char *smap_write(const uint8_t *data, uint32_t len, const int32_t *label, const int32_t *insn,
                       uint32_t code_len, wr_t *w)
{
    rd_t r;
    rd_init(&r, data, len);
    uint32_t n = rd_u2(&r);
    wr_u2(w, n);
    for (uint32_t i = 0; i < n && !r.err; i++) {
        uint32_t pc = rd_u2(&r);
        if (r.err || pc >= code_len || label[pc] < 0) return "StackMap frame not at an instruction";
        wr_u2(w, (uint32_t)label[pc]);
        for (int part = 0; part < 2; part++) {
            uint32_t k = rd_u2(&r);
            wr_u2(w, k);
            if (!copy_vtypes(&r, w, k, insn, code_len)) return "malformed StackMap";
        }
    }
    return r.err || r.pos != len ? "malformed StackMap" : NULL;
}

/* Reads k types into l (capacity cap); 0 if malformed or full. */
static int read_full(rd_t *r, uint32_t k, smt_vt *l, uint32_t *n, uint32_t cap)
{
    for (uint32_t i = 0; i < k; i++) {
        smt_vt v = get_vtype(r);
        if (v.tag > VT_UNINIT || *n >= cap) return 0;
        l[(*n)++] = v;
    }
    return !r->err;
}

static int write_full(wr_t *w, const smt_vt *v, uint32_t k, const int32_t *insn, uint32_t code_len)
{
    for (uint32_t i = 0; i < k; i++)
        if (!put_vtype(w, v[i], insn, code_len)) return 0;
    return 1;
}

const char *smt_write_local(const smt_table *t, const int32_t *label, const int32_t *insn,
                            uint32_t code_len, const smt_vt *init, uint32_t n_init, uint32_t slot,
                            smt_vt local, wr_t *w)
{
    /* Locals are at most `slot` wide; a frame's stack items take a byte of
     * its body each. */
    uint32_t cap = 1;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->f[i].body_len >= cap) cap = t->f[i].body_len + 1;
    smt_vt *loc = malloc(((size_t)slot + 1) * sizeof *loc), *stk = malloc(cap * sizeof *stk);
    const char *err = loc && stk ? NULL : "out of memory";
    uint32_t nloc = 0;
    for (uint32_t i = 0; !err && i < n_init; i++) {
        if (nloc >= slot)
            err = "initial frame wider than max_locals";
        else
            loc[nloc++] = init[i];
    }
    wr_u2(w, t->n);
    int64_t prev = -1;
    for (uint32_t i = 0; !err && i < t->n; i++) {
        const smt_frame *f = &t->f[i];
        uint32_t type = f->type, nstk = 0;
        rd_t r;
        rd_init(&r, f->body, f->body_len);
        int ok = 1;
        if ((type >= 64 && type <= 127) || type == 247)
            ok = read_full(&r, 1, stk, &nstk, cap);
        else if (type >= 248 && type <= 250) {
            ok = nloc >= 251 - type;
            if (ok) nloc -= 251 - type;
        } else if (type >= 252 && type <= 254)
            ok = read_full(&r, type - 251, loc, &nloc, slot);
        else if (type == 255) {
            nloc = 0;
            ok = read_full(&r, rd_u2(&r), loc, &nloc, slot);
            ok = ok && read_full(&r, rd_u2(&r), stk, &nstk, cap);
        }
        uint32_t width = 0;
        for (uint32_t k = 0; k < nloc; k++)
            width += loc[k].tag == VT_LONG || loc[k].tag == VT_DOUBLE ? 2 : 1;
        if (!ok || width > slot || label[f->offset] < 0) {
            err = "malformed StackMapTable frame";
            break;
        }
        wr_u1(w, 255);
        wr_u2(w, (uint32_t)(label[f->offset] - prev - 1));
        prev = label[f->offset];
        wr_u2(w, nloc + (slot - width) + 1);
        if (!write_full(w, loc, nloc, insn, code_len)) err = "bad Uninitialized offset";
        for (uint32_t k = width; k < slot; k++)
            wr_u1(w, VT_TOP);
        if (!write_full(w, &local, 1, insn, code_len)) err = "bad local type";
        wr_u2(w, nstk);
        if (!write_full(w, stk, nstk, insn, code_len)) err = "bad Uninitialized offset";
    }
    free(loc);
    free(stk);
    return err ? err : w->err ? "output too large" : NULL;
}
