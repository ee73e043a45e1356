/* Class-level driver: parses, numbers methods, rewrites their code and
 * writes the class back; any failure leaves the class unchanged. */
#include "bci/code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int skip(struct bci_result *res, const char *why, const char *detail)
{
    snprintf(res->reason, sizeof res->reason, "%s%s%s", why, detail ? ": " : "",
             detail ? detail : "");
    return 0;
}

static const char *check_hooks(const struct bci_hooks *h)
{
    const char *pairs[][2] = {
        {h->entry_name, h->entry_desc},         {h->exit_name, h->exit_desc},
        {h->leaf_name, h->leaf_desc},           {h->resume_name, h->resume_desc},
        {h->call_name, h->call_desc},           {h->new_obj_name, h->new_obj_desc},
        {h->new_array_name, h->new_array_desc}, {h->object_init_name, h->object_init_desc},
        {h->invoke_name, h->invoke_desc}};
    int any = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (pairs[i][0] && !pairs[i][1]) return "hook without descriptor";
        any |= pairs[i][0] != NULL;
    }
    if (any && !h->tracker_class) return "no tracker class";
    if (h->entry_local && (!h->entry_name || !h->exit_name || !h->resume_name))
        return "entry_local without entry, exit and resume";
    if (h->alloc_local && !h->entry_local) return "alloc_local without entry_local";
    if ((h->entry_local == BCI_LOCAL_LONG) != (h->long_number != NULL))
        return "long_number goes with a long entry_local";
    if (h->call_name && (!h->entry_local || !h->call_number)) return "call without entry_local";
    return any ? NULL : "no hooks enabled";
}

static int is_named(const uint8_t *name, uint16_t n, const char *cls)
{
    return name && cls && strlen(cls) == n && !memcmp(name, cls, n);
}

/* Rewrites every method with code; NULL on success. */
static const char *rewrite_methods(rw_ctx *x, char *where, size_t where_len)
{
    classfile *cf = &x->cf;
    uint16_t n;
    const uint8_t *cls = cp_class_name(&cf->cp, cf->this_class, &n);
    int is_object = is_named(cls, n, "java/lang/Object");
    int is_continuation = is_named(cls, n, "jdk/internal/vm/Continuation");
    for (uint16_t i = 0; i < cf->nmethods; i++) {
        cf_member *m = &cf->methods[i];
        const cf_attr *code = NULL;
        for (uint16_t k = 0; k < m->nattrs; k++) {
            if (!cp_utf8_eq(&cf->cp, m->attrs[k].name, "Code")) continue;
            if (code) return "duplicate Code attribute";
            code = &m->attrs[k];
        }
        if (!code) continue; /* native or abstract */
        char *name = cp_utf8_dup(&cf->cp, m->name), *desc = cp_utf8_dup(&cf->cp, m->desc);
        if (!name || !desc) {
            free(name);
            free(desc);
            return "bad method name or descriptor";
        }
        method_plan p = {.mnum = BCI_SKIP,
                         .ctor = strcmp(name, "<init>") == 0,
                         .cont_run =
                             is_continuation && !strcmp(name, "run") && !strcmp(desc, "()V")};
        /* The VM registers objects for finalization only when their class's
         * finalize() is not a lone `return`; keep such methods intact. */
        int empty_finalizer = !strcmp(name, "finalize") && !strcmp(desc, "()V") && code->len >= 9 &&
                              be_u4(code->data + 4) == 1 && code->data[8] == 0xb1;
        if (!x->force && !empty_finalizer) {
            const struct bci_hooks *h = x->h;
            p.mnum = h->method_number ? h->method_number(h->ctx, name, desc, m->access) : i;
            p.object_init = is_object && h->object_init_name && p.ctor && !strcmp(desc, "()V");
        }
        const char *err = code_rewrite(x, m, code, &p);
        if (err) snprintf(where, where_len, "%s%s", name, desc);
        free(name);
        free(desc);
        if (err) return err;
    }
    return NULL;
}

/* Tells h->source_file the class's SourceFile, if it has a readable one. */
static void report_source(const classfile *cf, const struct bci_hooks *h)
{
    for (uint16_t k = 0; h->source_file && k < cf->nattrs; k++) {
        const cf_attr *a = &cf->attrs[k];
        const cp_ent *s = cp_utf8_eq(&cf->cp, a->name, "SourceFile") && a->len == 2
                              ? cp_get(&cf->cp, be_u2(a->data), CP_UTF8)
                              : NULL;
        if (s) {
            h->source_file(h->ctx, s->s, s->slen);
            return;
        }
    }
}

/* Appends field f to the class; 1 if added, -1 on failure. */
static int add_field(classfile *cf, const struct bci_field *fd)
{
    for (uint16_t i = 0; i < cf->nfields; i++)
        if (cp_utf8_eq(&cf->cp, cf->fields[i].name, fd->name)) return 0;
    if (cf->nfields == 0xffff) return -1;
    cf_member *f = realloc(cf->fields, sizeof *f * ((size_t)cf->nfields + 1));
    if (!f) return -1;
    cf->fields = f;
    uint32_t name = cp_add_utf8(&cf->cp, fd->name), desc = cp_add_utf8(&cf->cp, fd->desc);
    if (!name || !desc) return -1;
    f[cf->nfields++] =
        (cf_member){.access = 0x1080, .name = (uint16_t)name, .desc = (uint16_t)desc};
    return 1;
}

static int run(const uint8_t *cls, size_t len, const struct bci_hooks *h, int force,
               struct bci_result *res)
{
    memset(res, 0, sizeof *res);
    rw_ctx x = {.h = h, .res = res, .force = force};
    const char *err = force ? NULL : check_hooks(h);
    if (err) return skip(res, err, NULL);
    if ((err = cf_parse(&x.cf, cls, len))) {
        cf_free(&x.cf);
        return skip(res, err, NULL);
    }
    uint16_t n;
    const uint8_t *name = cp_class_name(&x.cf.cp, x.cf.this_class, &n);
    if (!force && (is_named(name, n, h->tracker_class) || is_named(name, n, h->method_class) ||
                   is_named(name, n, h->alloc_class))) {
        cf_free(&x.cf);
        return skip(res, "tracker class", NULL);
    }
    if (!force) report_source(&x.cf, h);
    char where[128] = "";
    err = rewrite_methods(&x, where, sizeof where);
    int changed = 0;
    if (!err && !force && h->fields && is_named(name, n, h->field_class)) {
        for (const struct bci_field *f = h->fields; f->name && !err; f++) {
            int added = f->desc ? add_field(&x.cf, f) : -1;
            if (added < 0) err = "cannot add a field";
            changed |= added > 0;
        }
    }
    for (uint16_t i = 0; i < x.cf.nmethods; i++)
        changed |= x.cf.methods[i].new_code != NULL;
    if (!err && !changed && !force) err = "nothing to inject";
    /* New Code attributes replace old ones; the pool grows by a few
     * entries per method. */
    size_t expected = len + 256;
    for (uint16_t i = 0; i < x.cf.nmethods; i++)
        expected += x.cf.methods[i].new_code_len;
    wr_t w;
    wr_init(&w, expected + (size_t)x.cf.nmethods * 1024u + 65536u);
    if (!err) {
        wr_reserve(&w, expected);
        cf_write(&x.cf, &w);
        if (w.err) err = "output too large";
    }
    cf_free(&x.cf);
    if (err) {
        wr_free(&w);
        return skip(res, err, where[0] ? where : NULL);
    }
    res->data = w.p;
    res->len = w.len;
    return 1;
}

int bci_rewrite(const uint8_t *cls, size_t len, const struct bci_hooks *hooks,
                struct bci_result *res)
{
    return run(cls, len, hooks, 0, res);
}

int bci_roundtrip(const uint8_t *cls, size_t len, struct bci_result *res)
{
    static const struct bci_hooks none;
    return run(cls, len, &none, 1, res);
}

void bci_free(struct bci_result *res)
{
    free(res->data);
    res->data = NULL;
    res->len = 0;
}

int bci_class_name(const uint8_t *cls, size_t len, char *buf, size_t cap)
{
    rd_t r;
    rd_init(&r, cls, len);
    if (rd_u4(&r) != 0xCAFEBABE) return -1;
    rd_u4(&r); /* version */
    cpool cp;
    const char *err = cp_parse(&cp, &r);
    rd_u2(&r); /* access_flags */
    uint16_t this_class = (uint16_t)rd_u2(&r);
    uint16_t n = 0;
    const uint8_t *name = err || r.err ? NULL : cp_class_name(&cp, this_class, &n);
    int ret = -1;
    if (name && n < cap) {
        memcpy(buf, name, n);
        buf[n] = 0;
        ret = n;
    }
    cp_free(&cp);
    return ret;
}
