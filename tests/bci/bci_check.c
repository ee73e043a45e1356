/* Helpers shared by the rewriter's unit tests (bci_check.h). */
#include "bci_check.h"

#include "bci/buf.h"
#include "bci/classfile.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

const struct bci_hooks all_hooks = {
    .tracker_class = "T",
    .entry_name = "en",
    .entry_desc = "(II)V",
    .exit_name = "ex",
    .exit_desc = "(II)V",
    .exit_catch_all = 1,
    .new_obj_name = "nw",
    .new_obj_desc = "(I)V",
    .new_array_name = "na",
    .new_array_desc = "(Ljava/lang/Object;I)V",
    .object_init_name = "oi",
    .object_init_desc = "(Ljava/lang/Object;)V",
    .class_number = 7,
};

const cf_attr *find_code(const classfile *cf, const cf_member *m)
{
    for (uint16_t i = 0; i < m->nattrs; i++)
        if (cp_utf8_eq(&cf->cp, m->attrs[i].name, "Code")) return &m->attrs[i];
    return NULL;
}

void get_code(const uint8_t *cls, size_t len, int index, code_t *c)
{
    classfile cf;
    assert_null(cf_parse(&cf, cls, len));
    const cf_member *m = &cf.methods[index];
    const cf_attr *a = find_code(&cf, m);
    assert_non_null(a);
    rd_t r;
    rd_init(&r, a->data, a->len);
    c->max_stack = (uint16_t)rd_u2(&r);
    c->max_locals = (uint16_t)rd_u2(&r);
    c->len = rd_u4(&r);
    memcpy(c->code, rd_bytes(&r, c->len), c->len);
    c->nexc = (uint16_t)rd_u2(&r);
    for (int i = 0; i < c->nexc && i < 8; i++)
        for (int k = 0; k < 4; k++)
            c->exc[i][k] = (uint16_t)rd_u2(&r);
    c->has_smt = 0;
    for (uint32_t n = rd_u2(&r), i = 0; i < n; i++) {
        int smt = cp_utf8_eq(&cf.cp, rd_u2(&r), "StackMapTable");
        uint32_t alen = rd_u4(&r);
        const uint8_t *body = rd_bytes(&r, alen);
        if (smt && body) memcpy(c->smt, body, alen < sizeof c->smt ? alen : sizeof c->smt);
        c->has_smt |= smt;
    }
    assert_false(r.err);
    cf_free(&cf);
}

uint8_t *one_method(uint16_t major, const cg_method *m, size_t *len)
{
    classgen *g = cg_new(major, "C", "java/lang/Object");
    cg_add_method(g, m);
    return cg_finish(g, len);
}

/* Rewrites, checks the output re-parses and round-trips identically. */
int rewrite(const uint8_t *cls, size_t len, const struct bci_hooks *h, struct bci_result *r)
{
    int ok = bci_rewrite(cls, len, h, r);
    if (ok) {
        struct bci_result again;
        assert_int_equal(bci_roundtrip(r->data, r->len, &again), 1);
        assert_int_equal(again.len, r->len);
        assert_memory_equal(again.data, r->data, r->len);
        bci_free(&again);
    }
    return ok;
}
