#include "classgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    size_t len, cap;
} bytes;

struct classgen {
    bytes pool, methods;
    uint16_t npool, nmethods, this_class, super_class, major;
};

static void put(bytes *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void u1(bytes *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    put(b, &x, 1);
}

static void u2(bytes *b, unsigned v)
{
    u1(b, v >> 8);
    u1(b, v);
}

static void u4(bytes *b, uint32_t v)
{
    u2(b, v >> 16);
    u2(b, v & 0xffff);
}

uint16_t cg_utf8(classgen *g, const char *s)
{
    u1(&g->pool, 1);
    u2(&g->pool, (unsigned)strlen(s));
    put(&g->pool, s, strlen(s));
    return g->npool++;
}

uint16_t cg_class(classgen *g, const char *name)
{
    uint16_t n = cg_utf8(g, name);
    u1(&g->pool, 7);
    u2(&g->pool, n);
    return g->npool++;
}

uint16_t cg_methodref(classgen *g, const char *cls, const char *name, const char *desc)
{
    uint16_t c = cg_class(g, cls), n = cg_utf8(g, name), d = cg_utf8(g, desc);
    u1(&g->pool, 12);
    u2(&g->pool, n);
    u2(&g->pool, d);
    u1(&g->pool, 10);
    u2(&g->pool, c);
    u2(&g->pool, g->npool++);
    return g->npool++;
}

void cg_fill(classgen *g, unsigned n)
{
    char s[16];
    for (unsigned i = 0; i < n; i++) {
        snprintf(s, sizeof s, "f%u", i);
        cg_utf8(g, s);
    }
}

classgen *cg_new(uint16_t major, const char *name, const char *super)
{
    classgen *g = calloc(1, sizeof *g);
    g->npool = 1;
    g->major = major;
    g->this_class = cg_class(g, name);
    g->super_class = super ? cg_class(g, super) : 0;
    return g;
}

void cg_add_method(classgen *g, const cg_method *m)
{
    uint16_t code_name = cg_utf8(g, "Code");
    uint16_t smt_name = m->smt ? cg_utf8(g, "StackMapTable") : 0;
    uint16_t extra_name = m->attr_name ? cg_utf8(g, m->attr_name) : 0;
    bytes *b = &g->methods;
    u2(b, m->access);
    u2(b, cg_utf8(g, m->name));
    u2(b, cg_utf8(g, m->desc));
    if (!m->code) {
        u2(b, 0);
        g->nmethods++;
        return;
    }
    u2(b, 1);
    u2(b, code_name);
    uint32_t smt_attr = m->smt ? 6 + m->smt_len : 0, extra = m->attr_name ? 6 + m->attr_len : 0;
    u4(b, 12 + m->code_len + 8u * m->nexc + smt_attr + extra);
    u2(b, m->max_stack);
    u2(b, m->max_locals);
    u4(b, m->code_len);
    put(b, m->code, m->code_len);
    u2(b, m->nexc);
    for (uint16_t i = 0; i < m->nexc; i++) {
        u2(b, m->exc[i].start);
        u2(b, m->exc[i].end);
        u2(b, m->exc[i].handler);
        u2(b, m->exc[i].type);
    }
    u2(b, (m->smt ? 1 : 0) + (m->attr_name ? 1 : 0));
    if (m->smt) {
        u2(b, smt_name);
        u4(b, m->smt_len);
        put(b, m->smt, m->smt_len);
    }
    if (m->attr_name) {
        u2(b, extra_name);
        u4(b, m->attr_len);
        put(b, m->attr, m->attr_len);
    }
    g->nmethods++;
}

uint8_t *cg_finish(classgen *g, size_t *len)
{
    bytes out = {0};
    u4(&out, 0xCAFEBABE);
    u2(&out, 0);
    u2(&out, g->major);
    u2(&out, g->npool);
    put(&out, g->pool.p, g->pool.len);
    u2(&out, 0x0021);
    u2(&out, g->this_class);
    u2(&out, g->super_class);
    u2(&out, 0); /* interfaces */
    u2(&out, 0); /* fields */
    u2(&out, g->nmethods);
    put(&out, g->methods.p, g->methods.len);
    u2(&out, 0); /* attributes */
    free(g->pool.p);
    free(g->methods.p);
    free(g);
    *len = out.len;
    return out.p;
}

uint8_t *cg_finish_with_lines(classgen *g, uint16_t max_stack, const uint8_t *code,
                              uint32_t code_len, const uint8_t *lnt, uint32_t lnt_len, size_t *len)
{
    cg_method m = {.access = 9, /* public static */
                   .name = "m",
                   .desc = "()V",
                   .max_stack = max_stack,
                   .code = code,
                   .code_len = code_len,
                   .attr_name = "LineNumberTable",
                   .attr = lnt,
                   .attr_len = lnt_len};
    cg_add_method(g, &m);
    return cg_finish(g, len);
}
