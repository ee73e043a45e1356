/* Per-method rewriting, driven: parses the Code attribute, decodes
 * (code_decode.c), plans (code_plan.c), lays out and emits (code_emit.c)
 * the new one. */
#include "bci/calls.h"
#include "bci/method.h"

#include <stdlib.h>
#include <string.h>

static const char *parse_code(mctx *m, const cf_attr *ca)
{
    rd_t r;
    rd_init(&r, ca->data, ca->len);
    m->max_stack = (uint16_t)rd_u2(&r);
    m->max_locals = (uint16_t)rd_u2(&r);
    m->len = rd_u4(&r);
    if (r.err || m->len == 0 || m->len > MAX_CODE) return code_fail(m, "bad code length");
    m->code = rd_bytes(&r, m->len);
    m->nexc = (uint16_t)rd_u2(&r);
    m->exc = rd_bytes(&r, (size_t)m->nexc * 8);
    m->nattrs = (uint16_t)rd_u2(&r);
    if (r.err) return code_fail(m, "truncated Code attribute");
    m->attrs = r.p + r.pos;
    m->attrs_len = (uint32_t)(r.len - r.pos);
    for (uint16_t k = 0; k < m->nattrs; k++) {
        rd_u2(&r); /* attribute_name_index */
        rd_bytes(&r, rd_u4(&r));
    }
    if (r.err || r.pos != r.len) return code_fail(m, "malformed Code attributes");
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
        if ((*has)++) return code_fail(m, "duplicate StackMapTable");
        uint8_t loc[258];
        uint32_t nloc;
        code_init_locals(m, mem, loc, &nloc);
        const char *e = smt_parse(smt, d, len, m->len, loc, nloc);
        if (e) return code_fail(m, e);
    }
    return NULL;
}

/* Where handler h's resume call is in the new code: [*from, *to), empty
 * when it has none. */
static void resume_call(const mctx *m, uint32_t h, int32_t *from, int32_t *to)
{
    *from = *to = m->label[h];
    if (m->idx[h] >= 0) *to += (int32_t)m->in[m->idx[h]].resume_len;
}

/* The original exception table with each handler's resume call cut out of
 * the ranges that lead to that same handler. javac covers a finally
 * handler's first store, and an outer finally the inner one's code, by the
 * handler itself; with the call inside, the handler is its own exception
 * predecessor through an invoke, which C1 cannot compile (bci README, C1
 * and handlers). Ranges leading elsewhere keep covering it. */
static uint32_t write_exception_table(const mctx *m, wr_t *w)
{
    uint32_t n = 0;
    for (uint32_t e = 0; e < m->nexc; e++) {
        const uint8_t *x = m->exc + e * 8;
        int32_t from = m->label[be_u2(x)], to = m->label[be_u2(x + 2)], cut_from, cut_to;
        resume_call(m, be_u2(x + 4), &cut_from, &cut_to);
        int32_t part[2][2] = {{from, to}, {to, to}};
        if (cut_from < cut_to && from <= cut_from && cut_to <= to) {
            part[0][1] = cut_from;
            part[1][0] = cut_to;
        }
        for (int k = 0; k < 2; k++) {
            if (part[k][0] >= part[k][1]) continue;
            n++;
            wr_u2(w, (uint32_t)part[k][0]);
            wr_u2(w, (uint32_t)part[k][1]);
            wr_u2(w, (uint32_t)m->label[be_u2(x + 4)]);
            wr_u2(w, be_u2(x + 6));
        }
    }
    return n;
}

static const char *finish(mctx *m, cf_member *mem, const smt_table *smt, int has_smt)
{
    if (m->catch_from >= 0) {
        if (!m->x->throwable) m->x->throwable = cp_add_class(&m->x->cf.cp, "java/lang/Throwable");
        if (!m->x->smt_name) m->x->smt_name = cp_add_utf8(&m->x->cf.cp, "StackMapTable");
        if (!m->x->throwable || !m->x->smt_name) return code_fail(m, "constant pool overflow");
    }
    /* Only as much as the injected code needs: C1 inlines no callee whose
     * max_stack + max_locals - parameter slots exceeds C1InlineStackLimit
     * (5 with tiered compilation), and +2 on every allocating method kept
     * many small ones from being inlined (javac on JDK 25, depth=1: wall
     * 20.7 s, 14.9 s with this). */
    uint32_t stack = (uint32_t)m->max_stack + m->stack_rel;
    if (stack < m->stack_abs) stack = m->stack_abs;
    if (stack > 0xFFFF) return code_fail(m, "max_stack overflow");
    if (m->local >= 0 && m->max_locals > 0xFFFF - code_local_size(m))
        return code_fail(m, "max_locals overflow");
    wr_t w;
    /* Frames promoted to extended forms grow from 1 to 3 bytes at most; full
     * frames (an added local) restate every local in at most 3 bytes. */
    size_t full =
        m->local >= 0 && smt ? (size_t)smt->n * (3u * ((size_t)m->max_locals + 1) + 8) : 0;
    wr_init(&w, (size_t)MAX_CODE * 2 + (size_t)m->attrs_len * 3 + m->nexc * 16u + 256 + full);
    wr_reserve(&w, 8u + m->end + m->handler_len + m->nexc * 16u + (size_t)m->attrs_len * 2 + 64);
    wr_u2(&w, stack);
    wr_u2(&w, m->max_locals + (m->local >= 0 ? code_local_size(m) : 0));
    wr_u4(&w, m->end + m->handler_len);
    code_emit(m, &w);
    size_t count_at = w.len;
    wr_u2(&w, 0); /* the entry count, known once the ranges are cut */
    uint32_t nexc = write_exception_table(m, &w);
    if (m->catch_from >= 0) { /* last, so every original handler takes precedence */
        wr_u2(&w, (uint32_t)m->label[m->catch_from]);
        wr_u2(&w, m->end);
        wr_u2(&w, m->end);
        wr_u2(&w, 0);
        nexc++;
    }
    if (nexc > 0xFFFF)
        code_fail(m, "exception table overflow");
    else if (!w.err)
        put_u2(w.p + count_at, nexc);
    code_emit_attrs(m, mem, smt, has_smt, &w);
    if (w.err) code_fail(m, "Code attribute too large");
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
    if (!m->lines) return code_fail(m, "out of memory");
    if (m->p->mnum < 0 || m->x->force || !h->method_calls) return NULL;
    const char *err = calls_report(h, &m->x->cf, m->p->mnum, m->code, m->len, m->lines);
    return err ? code_fail(m, err) : NULL;
}

static void count_growth(struct bci_result *res, uint32_t before, uint32_t after)
{
    res->methods++;
    res->past_max_inline += before <= 35 && after > 35;
    res->past_freq_inline += before <= 325 && after > 325;
}

const char *code_rewrite(rw_ctx *x, cf_member *mem, const cf_attr *code, const method_plan *p)
{
    mctx m = {.x = x, .p = p, .catch_from = -1};
    smt_table smt = {0};
    int has_smt = 0;
    wr_init(&m.inj, (size_t)MAX_CODE * 4);
    wr_space(&m.inj, 0); /* allocate, so fragment offsets apply to a real buffer */
    if (!parse_code(&m, code) && !code_decode(&m) && !load_smt(&m, mem, &smt, &has_smt) &&
        !add_lines(&m)) {
        m.smt = has_smt ? &smt : NULL;
        code_plan(&m, m.smt);
        if (!m.err && (m.injected || x->force) && !code_layout(&m)) finish(&m, mem, &smt, has_smt);
        if (!m.err && m.injected) count_growth(x->res, m.len, m.end + m.handler_len);
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
