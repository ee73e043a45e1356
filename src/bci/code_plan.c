/* Planning a method's injections: the hook calls each instruction gets
 * before or after it, at entry and in the catch-all handler. */
#include "bci/calls.h"
#include "bci/insn.h"
#include "bci/method.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
            code_fail(m, "constant pool overflow");
        else if (k < 256) {
            wr_u1(w, OP_LDC);
            wr_u1(w, k);
        } else {
            wr_u1(w, OP_LDC_W);
            wr_u2(w, k);
        }
    }
}

/* Emits code pushing long constant v. */
static void push_long(mctx *m, int64_t v)
{
    wr_t *w = &m->inj;
    if (v == 0 || v == 1) {
        wr_u1(w, (uint32_t)(OP_LCONST_0 + v));
        return;
    }
    uint32_t k = cp_add_long(&m->x->cf.cp, v);
    if (!k) {
        code_fail(m, "constant pool overflow");
        return;
    }
    wr_u1(w, OP_LDC2_W);
    wr_u2(w, k);
}

/* A method or call number as entry, resume and call get it: an int, or with
 * a long local the client's long for it. Returns the slots pushed. */
static uint16_t push_number(mctx *m, int number)
{
    if (code_local_size(m) == 2) {
        push_long(m, m->x->h->long_number(number));
        return 2;
    }
    push_int(m, number);
    return 1;
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
    if (!ref) code_fail(m, "constant pool overflow");
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

/* Load (store = 0) or store of the added local, of its type. */
static void local_insn(mctx *m, int store)
{
    wr_t *w = &m->inj;
    int wide = code_local_size(m) == 2;
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
        wr_u1(&m->inj, code_local_size(m) == 2 ? OP_LCONST_0 : OP_ICONST_0);
    return code_local_size(m);
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

/* Asks the caller for a site number; BCI_SKIP or failure: no injection. */
static int site_number(mctx *m, const insn_t *i, int *site)
{
    const struct bci_hooks *h = m->x->h;
    struct bci_site s = {.method_number = m->p->mnum, .bci = i->pc, .opcode = m->code[i->pc]};
    char *type = alloc_type(m, i);
    if (!type) {
        code_fail(m, "bad allocation type operand");
        return 0;
    }
    s.type = type;
    s.line = code_line_of(m, i->pc);
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

/* Whether the last parameter of descriptor d (up to its ')') is a reference. */
static int last_param_is_reference(const uint8_t *d, const uint8_t *close)
{
    const uint8_t *p = d + 1, *last = NULL;
    while (p < close) {
        last = p;
        while (p < close && *p == '[')
            p++;
        if (p < close && *p == 'L') p = memchr(p, ';', (size_t)(close - p));
        if (p == NULL) return 0;
        p++;
    }
    return last && (*last == 'L' || *last == '[');
}

/* Asks the caller for an invocation's number when the invoke returns a
 * reference, and whether to mark it (*mark); BCI_SKIP, another result or
 * failure: no injection. */
static int invoke_number(mctx *m, const insn_t *i, int *num, int *mark)
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
        code_fail(m, "out of memory");
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
                             .line = code_line_of(m, i->pc)};
    *num = h->invoke_number(h->ctx, &inv);
    *mark = *num >= 0 && h->mark_name && h->invoke_marked && h->invoke_marked(h->ctx, &inv) &&
            last_param_is_reference(d->s, close);
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
        if (!code_each_target(m, &m->in[j], branch_crosses, &call)) return -1;
    for (uint32_t e = 0; e < m->nexc; e++)
        if (be_u2(m->exc + e * 8) <= call && be_u2(m->exc + e * 8 + 4) > call) return -1;
    for (uint32_t f = 0; smt && f < smt->n; f++)
        if (smt->f[f].offset > call && smt->f[f].uninit_this) return -1;
    return m->in[k + 1].pc;
}

/* Whether the method switches Thread.currentThread(): it calls
 * java/lang/Thread.setCurrentThread, or VirtualThread's switchToCarrierThread
 * or switchToVirtualThread (virtual-thread mounting). Its entry and exit
 * run on different threads: entry_local hooks would read a height on one
 * and write it on another (they get none), entry/exit would push a frame
 * on one and pop it on the other (switch_from/switch_to instead). */
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

/* Whether the handler starting at instruction k only stores the exception,
 * releases monitors and rethrows it (javac's code for the end of a
 * synchronized block): no hook runs there, so it needs no resume, and the
 * frame that catches the exception resumes its own callers. The resume
 * would be a call inside the handler's own range with a monitor held, which
 * C1 cannot compile (bci README, C1 and handlers). */
static bool only_rethrows(const mctx *m, uint32_t k)
{
    for (; k < m->n; k++) {
        uint8_t op = m->code[m->in[k].pc];
        if (op == OP_ATHROW) return true;
        bool moves_ref = op == OP_ALOAD || op == OP_ASTORE ||
                         (op >= OP_ALOAD_0 && op <= OP_ALOAD_3) ||
                         (op >= OP_ASTORE_0 && op <= OP_ASTORE_3);
        if (!moves_ref && op != OP_MONITOREXIT) return false;
    }
    return false;
}

/* No invoke, allocation, backward branch or exception handler: a bounded
 * run of instructions that calls nothing (bci_hooks.leaf_name). */
static int short_leaf(const mctx *m)
{
    if (m->nexc || calls_or_allocates(m)) return 0;
    for (uint32_t k = 0; k < m->n; k++)
        if (!code_each_target(m, &m->in[k], goes_forward, NULL)) return 0;
    return 1;
}

void code_plan(mctx *m, const smt_table *smt)
{
    const struct bci_hooks *h = m->x->h;
    int on = m->p->mnum >= 0;
    int leaf = on && h->leaf_name && short_leaf(m);
    int calls_on = on && !leaf && (!h->entry_exit_skip_leaves || calls_or_allocates(m));
    int switcher = calls_on && (h->entry_local || h->switch_from_name) && switches_thread(m);
    if (h->entry_local && (switcher || m->p->cont_run)) calls_on = switcher = 0;
    int exit_on = (calls_on && (switcher ? h->switch_to_name : h->exit_name)) || leaf;
    int exit_kind = leaf ? HK_LEAF : switcher ? HK_SWITCH_TO : HK_EXIT;
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
        push_number(m, m->p->mnum); /* as many slots as the local it returns */
        call_hook(m, HK_ENTRY);
        local_insn(m, 1);
        need_abs(m, code_local_size(m));
    } else if (calls_on && (switcher ? h->switch_from_name : h->entry_name)) {
        call_method_hook(m, switcher ? HK_SWITCH_FROM : HK_ENTRY);
        need_abs(m, 2);
    }
    m->entry_len = (uint32_t)m->inj.len;
    for (uint32_t k = 0; k < m->n && !m->err; k++) {
        insn_t *i = &m->in[k];
        uint8_t op = m->code[i->pc];
        int site, invoke_site = 0, mark = 0;
        int hooked_invoke = on && op >= OP_INVOKEVIRTUAL && op <= OP_INVOKEINTERFACE &&
                            h->invoke_name && h->invoke_number &&
                            invoke_number(m, i, &invoke_site, &mark);
        i->pre = (uint32_t)m->inj.len;
        if (m->local >= 0 && i->handler && !only_rethrows(m, k)) {
            uint16_t args = code_local_size(m);
            local_insn(m, 0);
            if (args == 2) args += push_number(m, m->p->mnum); /* the long form: and the method */
            call_hook(m, HK_RESUME);
            need_abs(m, 1 + args); /* above the exception alone */
            i->resume_len = (uint32_t)m->inj.len - i->pre;
        }
        if (m->local >= 0 && insn_is_return(op)) {
            local_insn(m, 0);
            call_hook(m, HK_EXIT);
            need_rel(m, code_local_size(m));
        } else if (m->local < 0 && exit_on &&
                   (insn_is_return(op) ||
                    (op == OP_ATHROW && (m->catch_from < 0 || i->pc < m->catch_from)))) {
            call_method_hook(m, exit_kind);
            need_rel(m, 2);
        } else if (m->local >= 0 && h->call_name &&
                   (site = calls_number(h, &m->x->cf.cp, m->p->mnum, m->code, i->pc,
                                        code_line_of(m, i->pc))) >= 0) {
            local_insn(m, 0);
            uint16_t args = code_local_size(m) + push_number(m, site);
            call_hook(m, HK_CALL);
            need_rel(m, args);
        } else if (on && op == OP_NEW && h->new_obj_name && site_number(m, i, &site)) {
            push_int(m, site);
            uint16_t ctx = push_alloc_local(m);
            call_hook(m, HK_NEW);
            need_rel(m, 1 + ctx);
            m->x->res->sites++;
        }
        if (mark) { /* last in the prefix: right before the invoke */
            wr_u1(&m->inj, OP_DUP);
            call_hook(m, HK_MARK);
            need_rel(m, 1);
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
        } else if (hooked_invoke) {
            wr_u1(&m->inj, OP_DUP);
            push_int(m, invoke_site);
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
    if (m->inj.err) code_fail(m, "out of memory");
}
