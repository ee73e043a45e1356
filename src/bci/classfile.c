#include "bci/classfile.h"

#include <stdlib.h>
#include <string.h>

static const char *parse_attrs(rd_t *r, uint16_t *n, cf_attr **out)
{
    *n = (uint16_t)rd_u2(r);
    *out = NULL;
    if (r->err) return "truncated attribute count";
    if ((size_t)*n * 6 > r->len - r->pos) return "attribute count exceeds class size";
    if (*n == 0) return NULL;
    cf_attr *a = calloc(*n, sizeof *a);
    if (!a) return "out of memory";
    *out = a;
    for (uint16_t i = 0; i < *n; i++) {
        a[i].name = (uint16_t)rd_u2(r);
        a[i].len = rd_u4(r);
        a[i].data = rd_bytes(r, a[i].len);
        if (r->err) return "truncated attribute";
    }
    return NULL;
}

static const char *parse_members(rd_t *r, uint16_t *n, cf_member **out)
{
    *n = (uint16_t)rd_u2(r);
    *out = NULL;
    if (r->err) return "truncated member count";
    if ((size_t)*n * 8 > r->len - r->pos) return "member count exceeds class size";
    if (*n == 0) return NULL;
    cf_member *m = calloc(*n, sizeof *m);
    if (!m) return "out of memory";
    *out = m;
    for (uint16_t i = 0; i < *n; i++) {
        m[i].access = (uint16_t)rd_u2(r);
        m[i].name = (uint16_t)rd_u2(r);
        m[i].desc = (uint16_t)rd_u2(r);
        const char *err = parse_attrs(r, &m[i].nattrs, &m[i].attrs);
        if (err) return err;
    }
    return NULL;
}

const char *cf_parse(classfile *cf, const uint8_t *p, size_t len)
{
    memset(cf, 0, sizeof *cf);
    rd_t r;
    rd_init(&r, p, len);
    if (rd_u4(&r) != 0xCAFEBABE) return "bad magic";
    cf->minor = (uint16_t)rd_u2(&r);
    cf->major = (uint16_t)rd_u2(&r);
    if (r.err) return "truncated header";
    if (cf->major < CF_MIN_MAJOR || cf->major > CF_MAX_MAJOR)
        return "unsupported class file version";
    const char *err = cp_parse(&cf->cp, &r);
    if (err) return err;
    cf->access = (uint16_t)rd_u2(&r);
    cf->this_class = (uint16_t)rd_u2(&r);
    cf->super_class = (uint16_t)rd_u2(&r);
    cf->ninterfaces = (uint16_t)rd_u2(&r);
    cf->interfaces = rd_bytes(&r, (size_t)cf->ninterfaces * 2);
    if (r.err) return "truncated class header";
    if (!cp_get(&cf->cp, cf->this_class, CP_CLASS)) return "bad this_class";
    if ((err = parse_members(&r, &cf->nfields, &cf->fields)) ||
        (err = parse_members(&r, &cf->nmethods, &cf->methods)) ||
        (err = parse_attrs(&r, &cf->nattrs, &cf->attrs)))
        return err;
    if (r.pos != len) return "extra bytes after class file";
    return NULL;
}

static void free_members(cf_member *m, uint16_t n)
{
    for (uint16_t i = 0; m && i < n; i++) {
        free(m[i].attrs);
        free(m[i].new_code);
    }
    free(m);
}

void cf_free(classfile *cf)
{
    cp_free(&cf->cp);
    free_members(cf->fields, cf->nfields);
    free_members(cf->methods, cf->nmethods);
    free(cf->attrs);
    memset(cf, 0, sizeof *cf);
}

static void write_attr(wr_t *w, uint16_t name, const uint8_t *data, uint32_t len)
{
    wr_u2(w, name);
    wr_u4(w, len);
    wr_bytes(w, data, len);
}

static void write_members(const classfile *cf, wr_t *w, const cf_member *m, uint16_t n)
{
    wr_u2(w, n);
    for (uint16_t i = 0; i < n; i++) {
        wr_u2(w, m[i].access);
        wr_u2(w, m[i].name);
        wr_u2(w, m[i].desc);
        wr_u2(w, m[i].nattrs);
        for (uint16_t j = 0; j < m[i].nattrs; j++) {
            const cf_attr *a = &m[i].attrs[j];
            if (m[i].new_code && cp_utf8_eq(&cf->cp, a->name, "Code"))
                write_attr(w, a->name, m[i].new_code, m[i].new_code_len);
            else
                write_attr(w, a->name, a->data, a->len);
        }
    }
}

void cf_write(const classfile *cf, wr_t *w)
{
    wr_u4(w, 0xCAFEBABE);
    wr_u2(w, cf->minor);
    wr_u2(w, cf->major);
    cp_write(&cf->cp, w);
    wr_u2(w, cf->access);
    wr_u2(w, cf->this_class);
    wr_u2(w, cf->super_class);
    wr_u2(w, cf->ninterfaces);
    wr_bytes(w, cf->interfaces, (size_t)cf->ninterfaces * 2);
    write_members(cf, w, cf->fields, cf->nfields);
    write_members(cf, w, cf->methods, cf->nmethods);
    wr_u2(w, cf->nattrs);
    for (uint16_t i = 0; i < cf->nattrs; i++)
        write_attr(w, cf->attrs[i].name, cf->attrs[i].data, cf->attrs[i].len);
}
