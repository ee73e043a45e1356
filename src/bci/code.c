/* Per-method rewriting: decodes the Code attribute, plans injections,
 * lays out the new code (widening 16-bit branches that overflow), emits it
 * and relocates every offset-bearing table. */
#include "calls.h"
#include "insn.h"
#include "rewrite.h"
#include "stackmap.h"
#include "typeanno.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CODE 65535

typedef struct {
    uint32_t pc, len;
    uint32_t pre, pre_len; /* injected before the instruction (offsets into inj) */
    uint32_t suf, suf_len; /* injected after it */
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

static const char *fail(mctx *m, const char *why)
{
    if (!m->err) m->err = why;
    return m->err;
}

static int32_t target_of(const mctx *m, const insn_t *i)
{
    const uint8_t *c = m->code + i->pc;
    if (c[0] == OP_GOTO_W || c[0] == OP_JSR_W) return (int32_t)i->pc + (int32_t)be_u4(c + 1);
    return (int32_t)i->pc + (int16_t)be_u2(c + 1);
}

static int valid_target(const mctx *m, int64_t t)
{
    return t >= 0 && t < m->len && m->idx[t] >= 0;
}

/* Visits every branch/switch target of instruction i; stops on first 0. */
static int each_target(const mctx *m, const insn_t *i,
                       int (*fn)(const mctx *, const insn_t *, int64_t, void *), void *arg)
{
    uint8_t op = m->code[i->pc];
    if (insn_is_branch16(op) || op == OP_GOTO_W || op == OP_JSR_W)
        return fn(m, i, target_of(m, i), arg);
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

static const char *decode(mctx *m)
{
    m->idx = malloc(((size_t)m->len + 1) * sizeof *m->idx);
    m->in = malloc((size_t)m->len * sizeof *m->in);
    if (!m->idx || !m->in) return fail(m, "out of memory");
    memset(m->idx, 0xff, ((size_t)m->len + 1) * sizeof *m->idx);
    for (uint32_t pc = 0; pc < m->len;) {
        uint32_t l = insn_length(m->code, m->len, pc);
        if (!l) return fail(m, "invalid or truncated instruction");
        m->idx[pc] = (int32_t)m->n;
        m->in[m->n++] = (insn_t){.pc = pc, .len = l};
        pc += l;
    }
    for (uint32_t k = 0; k < m->n; k++)
        if (!each_target(m, &m->in[k], check_target, NULL))
            return fail(m, "branch target is not an instruction");
    for (uint32_t e = 0; e < m->nexc; e++) {
        const uint8_t *x = m->exc + e * 8;
        uint32_t s = be_u2(x), t = be_u2(x + 2), h = be_u2(x + 4);
        if (!valid_target(m, s) || !valid_target(m, h) || t <= s || t > m->len ||
            (t < m->len && m->idx[t] < 0))
            return fail(m, "bad exception table entry");
        m->in[m->idx[h]].handler = 1;
    }
    return NULL;
}

/* Emits code pushing constant v into the fragment pool. */
static void push_int(mctx *m, int32_t v)
{
    wr_t *w = &m->inj;
    if (v >= -1 && v <= 5)
        wr_u1(w, (uint32_t)(OP_ICONST_M1 + 1 + v));
    else if (v >= -128 && v <= 127) {
        wr_u1(w, OP_BIPUSH);
        wr_u1(w, (uint32_t)v & 0xff);
    } else if (v >= -32768 && v <= 32767) {
        wr_u1(w, OP_SIPUSH);
        wr_u2(w, (uint32_t)v & 0xffff);
    } else {
        uint32_t k = cp_add_int(&m->x->cf.cp, v);
        if (!k)
            fail(m, "constant pool overflow");
        else if (k < 256) {
            wr_u1(w, OP_LDC);
            wr_u1(w, k);
        } else {
            wr_u1(w, OP_LDC_W);
            wr_u2(w, k);
        }
    }
}

/* Injected code at an unknown depth pushes `rel` values at most. */
static void need_rel(mctx *m, uint16_t rel)
{
    if (rel > m->stack_rel) m->stack_rel = rel;
}

/* Injected code runs where the stack holds `abs` values at most (counting
 * its own). */
static void need_abs(mctx *m, uint16_t abs)
{
    if (abs > m->stack_abs) m->stack_abs = abs;
}

static void call_hook(mctx *m, int k)
{
    uint32_t ref = rw_hook_ref(m->x, k);
    if (!ref) fail(m, "constant pool overflow");
    wr_u1(&m->inj, OP_INVOKESTATIC);
    wr_u2(&m->inj, ref);
    m->injected = 1;
}

static void call_method_hook(mctx *m, int k)
{
    push_int(m, m->x->h->class_number);
    push_int(m, m->p->mnum);
    call_hook(m, k);
}

/* Slots of the added local: 2 for a long. */
static uint16_t local_size(const mctx *m)
{
    return m->x->h->entry_local == BCI_LOCAL_LONG ? 2 : 1;
}

/* Load (store = 0) or store of the added local, of its type. */
static void local_insn(mctx *m, int store)
{
    wr_t *w = &m->inj;
    int wide = local_size(m) == 2;
    uint8_t op = store ? (wide ? OP_LSTORE : OP_ISTORE) : (wide ? OP_LLOAD : OP_ILOAD);
    uint8_t op0 = store ? (wide ? OP_LSTORE_0 : OP_ISTORE_0) : (wide ? OP_LLOAD_0 : OP_ILOAD_0);
    uint32_t v = (uint32_t)m->local;
    if (v <= 3)
        wr_u1(w, op0 + v);
    else if (v <= 255) {
        wr_u1(w, op);
        wr_u1(w, v);
    } else {
        wr_u1(w, OP_WIDE);
        wr_u1(w, op);
        wr_u2(w, v);
    }
}

/* With alloc_local: the local as an allocation hook's last argument, or 0
 * of its type in a method without one. Returns the slots pushed. */
static uint16_t push_alloc_local(mctx *m)
{
    const struct bci_hooks *h = m->x->h;
    if (!h->alloc_local) return 0; /* check_hooks: only with entry_local */
    if (m->local >= 0)
        local_insn(m, 0);
    else
        wr_u1(&m->inj, local_size(m) == 2 ? OP_LCONST_0 : OP_ICONST_0);
    return local_size(m);
}

/* JVM signature of the object allocated by instruction i (malloc'd). */
static char *alloc_type(const mctx *m, const insn_t *i)
{
    static const char prim[] = "ZCFDBSIJ";
    const uint8_t *c = m->code + i->pc;
    char *s = NULL;
    if (c[0] == OP_NEWARRAY) {
        if (c[1] < 4 || c[1] > 11 || !(s = malloc(3))) return NULL;
        s[0] = '[';
        s[1] = prim[c[1] - 4];
        s[2] = 0;
        return s;
    }
    uint16_t n;
    const uint8_t *name = cp_class_name(&m->x->cf.cp, be_u2(c + 1), &n);
    if (!name || !(s = malloc((size_t)n + 4))) return NULL;
    int array = n && name[0] == '[';
    size_t k = 0;
    if (c[0] == OP_ANEWARRAY) s[k++] = '[';
    if (!array && c[0] != OP_MULTIANEWARRAY) s[k++] = 'L';
    memcpy(s + k, name, n);
    k += n;
    if (!array && c[0] != OP_MULTIANEWARRAY) s[k++] = ';';
    s[k] = 0;
    return s;
}

/* The line of original offset pc, 0 if none. */
static int32_t line_of(const mctx *m, uint32_t pc)
{
    return m->lines && pc < m->len ? m->lines[pc] : 0;
}

/* Asks the caller for a site number; BCI_SKIP or failure: no injection. */
static int site_number(mctx *m, const insn_t *i, int *site)
{
    const struct bci_hooks *h = m->x->h;
    struct bci_site s = {.method_number = m->p->mnum, .bci = i->pc, .opcode = m->code[i->pc]};
    char *type = alloc_type(m, i);
    if (!type) {
        fail(m, "bad allocation type operand");
        return 0;
    }
    s.type = type;
    s.line = line_of(m, i->pc);
    *site = h->site_number ? h->site_number(h->ctx, &s) : (int)i->pc;
    free(type);
    return *site >= 0;
}

/* The Methodref or InterfaceMethodref an invoke instruction at c names, and
 * its NameAndType in *nt; NULL (and *nt NULL) if the pool does not hold
 * them. */
static const cp_ent *invoked(const cpool *cp, const uint8_t *c, const cp_ent **nt)
{
    const cp_ent *r = cp_get(cp, be_u2(c + 1), CP_METHODREF);
    if (!r) r = cp_get(cp, be_u2(c + 1), CP_IMETHODREF);
    *nt = r ? cp_get(cp, r->b, CP_NAMEANDTYPE) : NULL;
    return r;
}

/* Asks the caller for an invocation's number when the invoke returns a
 * reference; BCI_SKIP, another result or failure: no injection. */
static int invoke_number(mctx *m, const insn_t *i, int *num)
{
    const struct bci_hooks *h = m->x->h;
    const cpool *cp = &m->x->cf.cp;
    const uint8_t *c = m->code + i->pc;
    const cp_ent *nt;
    const cp_ent *r = invoked(cp, c, &nt);
    const cp_ent *d = nt ? cp_get(cp, nt->b, CP_UTF8) : NULL;
    const uint8_t *close = d ? memchr(d->s, ')', d->slen) : NULL;
    if (!close || close + 1 >= (const uint8_t *)d->s + d->slen ||
        (close[1] != 'L' && close[1] != '['))
        return 0;
    uint16_t on;
    const uint8_t *owner = cp_class_name(cp, r->a, &on);
    const cp_ent *nm = cp_get(cp, nt->a, CP_UTF8);
    if (!owner || !nm) return 0;
    /* One buffer: owner, name and descriptor, each NUL-terminated. */
    char *buf = malloc((size_t)on + nm->slen + d->slen + 3);
    if (!buf) {
        fail(m, "out of memory");
        return 0;
    }
    memcpy(buf, owner, on);
    buf[on] = 0;
    memcpy(buf + on + 1, nm->s, nm->slen);
    buf[on + 1 + nm->slen] = 0;
    memcpy(buf + on + nm->slen + 2, d->s, d->slen);
    buf[on + nm->slen + 2 + d->slen] = 0;
    struct bci_invoke inv = {.method_number = m->p->mnum,
                             .bci = i->pc,
                             .opcode = c[0],
                             .owner = buf,
                             .name = buf + on + 1,
                             .desc = buf + on + nm->slen + 2,
                             .line = line_of(m, i->pc)};
    *num = h->invoke_number(h->ctx, &inv);
    free(buf);
    return *num >= 0;
}

static int branch_crosses(const mctx *m, const insn_t *i, int64_t t, void *arg)
{
    uint32_t s = *(const uint32_t *)arg;
    (void)m;
    return i->pc < s ? t <= s : t > s;
}

/* Start of a constructor's catch-all range: just after its super() or
 * this() call, found as the first invokespecial <init> not matching a
 * preceding `new`.  Checked so that no code after it can run with `this`
 * uninitialized; -1 when that cannot be shown.  The code before it cannot be
 * covered: HotSpot checks a handler over the invokespecial against the frame
 * after the call with flagThisUninit still set, which no StackMapTable frame
 * can accept (local 0 would have to be both uninitializedThis and Top).
 * java/lang/Object.<init> has no such call and so gets no catch-all either;
 * wrapping it was tried and crashed HotSpot 17's C2 compiler. */
static int64_t ctor_body_start(mctx *m, const smt_table *smt)
{
    uint32_t pending = 0, k;
    const cpool *cp = &m->x->cf.cp;
    for (k = 0; k < m->n; k++) {
        const uint8_t *c = m->code + m->in[k].pc;
        if (c[0] == OP_NEW)
            pending++;
        else if (c[0] == OP_INVOKESPECIAL) {
            const cp_ent *nt;
            invoked(cp, c, &nt);
            if (!nt || !cp_utf8_eq(cp, nt->a, "<init>")) continue;
            if (!pending) break;
            pending--;
        }
    }
    if (k + 1 >= m->n) return -1;
    uint32_t call = m->in[k].pc;
    for (uint32_t j = 0; j < m->n; j++)
        if (!each_target(m, &m->in[j], branch_crosses, &call)) return -1;
    for (uint32_t e = 0; e < m->nexc; e++)
        if (be_u2(m->exc + e * 8) <= call && be_u2(m->exc + e * 8 + 4) > call) return -1;
    for (uint32_t f = 0; smt && f < smt->n; f++)
        if (smt->f[f].offset > call && smt->f[f].uninit_this) return -1;
    return m->in[k + 1].pc;
}

/* Whether the method switches Thread.currentThread(): it calls
 * java/lang/Thread.setCurrentThread, or VirtualThread's switchToCarrierThread
 * or switchToVirtualThread (virtual-thread mounting). Hooks there would
 * read a height on one thread and write it on another. */
static int switches_thread(const mctx *m)
{
    static const char *const calls[][2] = {{"java/lang/Thread", "setCurrentThread"},
                                           {"java/lang/VirtualThread", "switchToCarrierThread"},
                                           {"java/lang/VirtualThread", "switchToVirtualThread"}};
    const cpool *cp = &m->x->cf.cp;
    for (uint32_t k = 0; k < m->n; k++) {
        const uint8_t *c = m->code + m->in[k].pc;
        if (c[0] < OP_INVOKEVIRTUAL || c[0] > OP_INVOKESTATIC) continue;
        const cp_ent *nt;
        const cp_ent *r = invoked(cp, c, &nt);
        uint16_t n;
        const uint8_t *owner = r ? cp_class_name(cp, r->a, &n) : NULL;
        for (size_t i = 0; nt && owner && i < sizeof calls / sizeof calls[0]; i++)
            if (strlen(calls[i][0]) == n && !memcmp(owner, calls[i][0], n) &&
                cp_utf8_eq(cp, nt->a, calls[i][1]))
                return 1;
    }
    return 0;
}

/* Whether the method invokes anything or allocates by bytecode. */
static int calls_or_allocates(const mctx *m)
{
    for (uint32_t k = 0; k < m->n; k++) {
        uint8_t op = m->code[m->in[k].pc];
        if ((op >= 0xb6 && op <= 0xbd) || op == OP_MULTIANEWARRAY) return 1;
    }
    return 0;
}

static int goes_forward(const mctx *m, const insn_t *i, int64_t t, void *arg)
{
    (void)m;
    (void)arg;
    return t > i->pc;
}

/* No invoke, allocation, backward branch or exception handler: a bounded
 * run of instructions that calls nothing (bci_hooks.leaf_name). */
static int short_leaf(const mctx *m)
{
    if (m->nexc || calls_or_allocates(m)) return 0;
    for (uint32_t k = 0; k < m->n; k++)
        if (!each_target(m, &m->in[k], goes_forward, NULL)) return 0;
    return 1;
}

static void plan(mctx *m, const smt_table *smt)
{
    const struct bci_hooks *h = m->x->h;
    int on = m->p->mnum >= 0;
    int leaf = on && h->leaf_name && short_leaf(m);
    int calls_on = on && !leaf && (!h->entry_exit_skip_leaves || calls_or_allocates(m));
    if (calls_on && h->entry_local && switches_thread(m)) calls_on = 0;
    int exit_on = (calls_on && h->exit_name) || leaf;
    int exit_kind = leaf ? HK_LEAF : HK_EXIT;
    m->catch_from = -1;
    m->local = calls_on && h->entry_local ? m->max_locals : -1;
    if (exit_on && h->exit_catch_all && m->local < 0) {
        m->catch_from = m->p->ctor ? ctor_body_start(m, smt) : 0;
        if (m->catch_from < 0) m->x->res->ctor_no_catch_all++;
    }
    /* Entry code runs on an empty stack. */
    if (m->p->object_init) {
        wr_u1(&m->inj, OP_ALOAD_0);
        call_hook(m, HK_OINIT);
        need_abs(m, 1);
    }
    if (m->local >= 0) {
        push_int(m, m->p->mnum);
        call_hook(m, HK_ENTRY);
        local_insn(m, 1);
        need_abs(m, local_size(m));
    } else if (calls_on && h->entry_name) {
        call_method_hook(m, HK_ENTRY);
        need_abs(m, 2);
    }
    m->entry_len = (uint32_t)m->inj.len;
    for (uint32_t k = 0; k < m->n && !m->err; k++) {
        insn_t *i = &m->in[k];
        uint8_t op = m->code[i->pc];
        int site;
        i->pre = (uint32_t)m->inj.len;
        if (m->local >= 0 && i->handler) {
            uint16_t args = local_size(m);
            local_insn(m, 0);
            if (args == 2) { /* the long form also gets the method number */
                push_int(m, m->p->mnum);
                args++;
            }
            call_hook(m, HK_RESUME);
            need_abs(m, 1 + args); /* above the exception alone */
        }
        if (m->local >= 0 && insn_is_return(op)) {
            local_insn(m, 0);
            call_hook(m, HK_EXIT);
            need_rel(m, local_size(m));
        } else if (m->local < 0 && exit_on &&
                   (insn_is_return(op) ||
                    (op == OP_ATHROW && (m->catch_from < 0 || i->pc < m->catch_from)))) {
            call_method_hook(m, exit_kind);
            need_rel(m, 2);
        } else if (m->local >= 0 && h->call_name &&
                   (site = calls_number(h, &m->x->cf.cp, m->p->mnum, m->code, i->pc,
                                        line_of(m, i->pc))) >= 0) {
            local_insn(m, 0);
            push_int(m, site);
            call_hook(m, HK_CALL);
            need_rel(m, local_size(m) + 1);
        } else if (on && op == OP_NEW && h->new_obj_name && site_number(m, i, &site)) {
            push_int(m, site);
            uint16_t ctx = push_alloc_local(m);
            call_hook(m, HK_NEW);
            need_rel(m, 1 + ctx);
            m->x->res->sites++;
        }
        i->pre_len = (uint32_t)m->inj.len - i->pre;
        i->suf = (uint32_t)m->inj.len;
        if (on && (op == OP_NEWARRAY || op == OP_ANEWARRAY || op == OP_MULTIANEWARRAY) &&
            h->new_array_name && site_number(m, i, &site)) {
            wr_u1(&m->inj, OP_DUP);
            push_int(m, site);
            uint16_t ctx = push_alloc_local(m);
            call_hook(m, HK_ARRAY);
            need_rel(m, 2 + ctx);
            m->x->res->sites++;
        } else if (on && op >= OP_INVOKEVIRTUAL && op <= OP_INVOKEINTERFACE && h->invoke_name &&
                   h->invoke_number && invoke_number(m, i, &site)) {
            wr_u1(&m->inj, OP_DUP);
            push_int(m, site);
            uint16_t ctx = push_alloc_local(m);
            call_hook(m, HK_INVOKE);
            need_rel(m, 2 + ctx);
            m->x->res->invokes++;
        }
        i->suf_len = (uint32_t)m->inj.len - i->suf;
    }
    if (m->catch_from >= 0) {
        m->handler = (uint32_t)m->inj.len;
        call_method_hook(m, exit_kind);
        need_abs(m, 3); /* the exception, then two arguments */
        wr_u1(&m->inj, OP_ATHROW);
        m->handler_len = (uint32_t)m->inj.len - m->handler;
    }
    if (m->inj.err) fail(m, "out of memory");
}

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

static const char *layout(mctx *m)
{
    size_t sz = ((size_t)m->len + 1) * sizeof(int32_t);
    m->label = malloc(sz);
    m->opc = malloc(sz);
    if (!m->label || !m->opc) return fail(m, "out of memory");
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
            if (at > MAX_CODE) return fail(m, "code too large after instrumentation");
        }
        m->end = (uint32_t)at;
        m->label[m->len] = m->opc[m->len] = (int32_t)at;
        if (at + m->handler_len > MAX_CODE) return fail(m, "code too large after instrumentation");
        int grew = 0;
        for (uint32_t k = 0; k < m->n; k++) {
            insn_t *i = &m->in[k];
            if (i->wide || !insn_is_branch16(m->code[i->pc])) continue;
            int64_t d = (int64_t)m->label[target_of(m, i)] - m->opc[i->pc];
            if (d >= -32768 && d <= 32767) continue;
            uint8_t op = m->code[i->pc];
            /* A conditional becomes `if!cond next; goto_w target; next:`, and
             * `next` needs a frame from version 50 on: only an existing one
             * can be used (making one would need type inference). */
            uint32_t next = i->pc + i->len;
            if (op != OP_GOTO && op != OP_JSR && m->x->cf.major >= 50 && !has_frame(m, next))
                return fail(m, "conditional branch overflow needs a new stack map frame");
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
        int32_t d = m->label[target_of(m, i)] - at;
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
        wr_u4(w, (uint32_t)(m->label[target_of(m, i)] - at));
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

static void emit_code(mctx *m, wr_t *w)
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
        fail(m, "malformed line/variable table");
        return;
    }
    uint8_t *o = wr_space(w, len);
    if (!o) return;
    memcpy(o, d, len);
    for (uint32_t k = 0, n = be_u2(d); k < n; k++) {
        uint8_t *e = o + 2 + k * rec;
        uint32_t pc = be_u2(e), l = rec == 10 ? be_u2(e + 2) : 0;
        if (rec == 4) {
            if (pc >= m->len) return (void)fail(m, "LineNumberTable entry beyond code");
            put_u2(e, pc ? (uint32_t)map_loose(m, pc) : 0);
        } else if (!map_range(m, &pc, &l)) {
            return (void)fail(m, "bad LocalVariableTable range");
        } else {
            put_u2(e, pc);
            put_u2(e + 2, l);
        }
    }
}

static void init_locals(const mctx *m, const cf_member *mem, uint8_t *loc, uint32_t *n)
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
    smt_vt local = {local_size(m) == 2 ? VT_LONG : VT_INTEGER, 0};
    return smt_write_local(smt, m->label, m->opc, m->len, init, (uint32_t)n, (uint32_t)m->local,
                           local, w);
}

static void emit_attrs(mctx *m, const cf_member *mem, const smt_table *smt, int has_smt, wr_t *w)
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
            if (e) fail(m, e);
        } else if (cp_utf8_eq(cp, name, "StackMap")) {
            if (m->local >= 0) fail(m, "CLDC StackMap with an added local");
            const char *e = smap_write(d, len, m->label, m->opc, m->len, w);
            if (e) fail(m, e);
        } else if (cp_utf8_eq(cp, name, "RuntimeVisibleTypeAnnotations") ||
                   cp_utf8_eq(cp, name, "RuntimeInvisibleTypeAnnotations")) {
            uint8_t *o = wr_space(w, len);
            const char *e =
                o ? (memcpy(o, d, len), ta_relocate(o, len, m, map_range, map_insn)) : NULL;
            if (e) fail(m, e);
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

static const char *parse_code(mctx *m, const cf_attr *ca)
{
    rd_t r;
    rd_init(&r, ca->data, ca->len);
    m->max_stack = (uint16_t)rd_u2(&r);
    m->max_locals = (uint16_t)rd_u2(&r);
    m->len = rd_u4(&r);
    if (r.err || m->len == 0 || m->len > MAX_CODE) return fail(m, "bad code length");
    m->code = rd_bytes(&r, m->len);
    m->nexc = (uint16_t)rd_u2(&r);
    m->exc = rd_bytes(&r, (size_t)m->nexc * 8);
    m->nattrs = (uint16_t)rd_u2(&r);
    if (r.err) return fail(m, "truncated Code attribute");
    m->attrs = r.p + r.pos;
    m->attrs_len = (uint32_t)(r.len - r.pos);
    for (uint16_t k = 0; k < m->nattrs; k++) {
        rd_u2(&r); /* attribute_name_index */
        rd_bytes(&r, rd_u4(&r));
    }
    if (r.err || r.pos != r.len) return fail(m, "malformed Code attributes");
    return NULL;
}

/* Finds the method's StackMapTable (at most one) and decodes it. */
static const char *load_smt(mctx *m, const cf_member *mem, smt_table *smt, int *has)
{
    rd_t r;
    rd_init(&r, m->attrs, m->attrs_len);
    *has = 0;
    for (uint16_t k = 0; k < m->nattrs; k++) {
        uint32_t name = rd_u2(&r), len = rd_u4(&r);
        const uint8_t *d = rd_bytes(&r, len);
        if (!cp_utf8_eq(&m->x->cf.cp, name, "StackMapTable")) continue;
        if ((*has)++) return fail(m, "duplicate StackMapTable");
        uint8_t loc[258];
        uint32_t nloc;
        init_locals(m, mem, loc, &nloc);
        const char *e = smt_parse(smt, d, len, m->len, loc, nloc);
        if (e) return fail(m, e);
    }
    return NULL;
}

static const char *finish(mctx *m, cf_member *mem, const smt_table *smt, int has_smt)
{
    if (m->catch_from >= 0) {
        if (!m->x->throwable) m->x->throwable = cp_add_class(&m->x->cf.cp, "java/lang/Throwable");
        if (!m->x->smt_name) m->x->smt_name = cp_add_utf8(&m->x->cf.cp, "StackMapTable");
        if (!m->x->throwable || !m->x->smt_name) return fail(m, "constant pool overflow");
    }
    /* Only as much as the injected code needs: C1 inlines no callee whose
     * max_stack + max_locals - parameter slots exceeds C1InlineStackLimit
     * (5 with tiered compilation), and +2 on every allocating method kept
     * many small ones from being inlined (javac on JDK 25, depth=1: wall
     * 20.7 s, 14.9 s with this). */
    uint32_t stack = (uint32_t)m->max_stack + m->stack_rel;
    if (stack < m->stack_abs) stack = m->stack_abs;
    if (stack > 0xFFFF) return fail(m, "max_stack overflow");
    if (m->local >= 0 && m->max_locals > 0xFFFF - local_size(m))
        return fail(m, "max_locals overflow");
    wr_t w;
    /* Frames promoted to extended forms grow from 1 to 3 bytes at most; full
     * frames (an added local) restate every local in at most 3 bytes. */
    size_t full =
        m->local >= 0 && smt ? (size_t)smt->n * (3u * ((size_t)m->max_locals + 1) + 8) : 0;
    wr_init(&w, (size_t)MAX_CODE * 2 + (size_t)m->attrs_len * 3 + m->nexc * 8u + 256 + full);
    wr_u2(&w, stack);
    wr_u2(&w, m->max_locals + (m->local >= 0 ? local_size(m) : 0));
    wr_u4(&w, m->end + m->handler_len);
    emit_code(m, &w);
    wr_u2(&w, m->nexc + (m->catch_from >= 0));
    for (uint32_t e = 0; e < m->nexc; e++) {
        const uint8_t *x = m->exc + e * 8;
        wr_u2(&w, (uint32_t)m->label[be_u2(x)]);
        wr_u2(&w, (uint32_t)m->label[be_u2(x + 2)]);
        wr_u2(&w, (uint32_t)m->label[be_u2(x + 4)]);
        wr_u2(&w, be_u2(x + 6));
    }
    if (m->catch_from >= 0) { /* last, so every original handler takes precedence */
        wr_u2(&w, (uint32_t)m->label[m->catch_from]);
        wr_u2(&w, m->end);
        wr_u2(&w, m->end);
        wr_u2(&w, 0);
    }
    emit_attrs(m, mem, smt, has_smt, &w);
    if (w.err) fail(m, "Code attribute too large");
    if (m->err || w.len > 0xFFFFFFFFu) {
        wr_free(&w);
        return m->err;
    }
    mem->new_code = w.p;
    mem->new_code_len = (uint32_t)w.len;
    return NULL;
}

/* The line table by offset, and the method's call sites to whoever wants
 * them. */
static const char *add_lines(mctx *m)
{
    const struct bci_hooks *h = m->x->h;
    m->lines = calls_lines(&m->x->cf.cp, m->attrs, m->attrs_len, m->nattrs, m->len);
    if (!m->lines) return fail(m, "out of memory");
    if (m->p->mnum < 0 || m->x->force || !h->method_calls) return NULL;
    const char *err = calls_report(h, &m->x->cf, m->p->mnum, m->code, m->len, m->lines);
    return err ? fail(m, err) : NULL;
}

const char *code_rewrite(rw_ctx *x, cf_member *mem, const cf_attr *code, const method_plan *p)
{
    mctx m = {.x = x, .p = p, .catch_from = -1};
    smt_table smt = {0};
    int has_smt = 0;
    wr_init(&m.inj, (size_t)MAX_CODE * 4);
    wr_space(&m.inj, 0); /* allocate, so fragment offsets apply to a real buffer */
    if (!parse_code(&m, code) && !decode(&m) && !load_smt(&m, mem, &smt, &has_smt) &&
        !add_lines(&m)) {
        m.smt = has_smt ? &smt : NULL;
        plan(&m, m.smt);
        if (!m.err && (m.injected || x->force) && !layout(&m)) finish(&m, mem, &smt, has_smt);
        if (!m.err && m.injected) x->res->methods++;
    }
    smt_free(&smt);
    wr_free(&m.inj);
    free(m.in);
    free(m.idx);
    free(m.label);
    free(m.opc);
    free(m.lines);
    return m.err;
}
