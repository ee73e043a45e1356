#include "bci/calls.h"

#include "bci/insn.h"

#include <stdlib.h>
#include <string.h>

enum { OP_GETSTATIC = 0xb2, OP_PUTSTATIC = 0xb3, OP_INVOKEDYNAMIC = 0xba };

struct line_entry {
    uint32_t start;
    int32_t line;
};

static int by_start(const void *a, const void *b)
{
    uint32_t x = ((const struct line_entry *)a)->start, y = ((const struct line_entry *)b)->start;
    return (x > y) - (x < y);
}

/* Appends the entries of one LineNumberTable body d[0..len) to *e; -1 when
 * out of memory. Malformed tables are skipped. */
static int take_table(const uint8_t *d, uint32_t len, struct line_entry **e, uint32_t *n)
{
    if (len < 2 || (size_t)be_u2(d) * 4 != len - 2) return 0;
    uint32_t add = be_u2(d);
    struct line_entry *grown = realloc(*e, sizeof **e * ((size_t)*n + add + 1));
    if (!grown) return -1;
    *e = grown;
    for (uint32_t k = 0; k < add; k++)
        grown[(*n)++] = (struct line_entry){be_u2(d + 2 + k * 4), (int32_t)be_u2(d + 4 + k * 4)};
    return 0;
}

int32_t *calls_lines(const cpool *cp, const uint8_t *attrs, uint32_t attrs_len, uint16_t nattrs,
                     uint32_t len)
{
    int32_t *lines = calloc(len ? len : 1, sizeof *lines);
    struct line_entry *e = NULL;
    uint32_t n = 0;
    rd_t r;
    rd_init(&r, attrs, attrs_len);
    for (uint16_t k = 0; lines && k < nattrs && !r.err; k++) {
        uint32_t name = rd_u2(&r), alen = rd_u4(&r);
        const uint8_t *d = rd_bytes(&r, alen);
        if (d && cp_utf8_eq(cp, name, "LineNumberTable") && take_table(d, alen, &e, &n) < 0) {
            free(lines);
            lines = NULL;
        }
    }
    if (lines && n) {
        /* Each offset takes the line of the entry with the greatest start <= it. */
        qsort(e, n, sizeof *e, by_start);
        for (uint32_t k = 0; k < n && e[k].start < len; k++) {
            uint32_t end = k + 1 < n && e[k + 1].start < len ? e[k + 1].start : len;
            for (uint32_t pc = e[k].start; pc < end; pc++)
                lines[pc] = e[k].line;
        }
    }
    free(e);
    return lines;
}

/* Fills owner, name and descriptor from the Methodref or
 * InterfaceMethodref at idx; 0 if it is neither. */
static int method_ref(const cpool *cp, uint32_t idx, const uint8_t **owner, uint16_t *owner_len,
                      const cp_ent **name, const cp_ent **desc)
{
    const cp_ent *ref = cp_get(cp, idx, CP_METHODREF);
    if (!ref) ref = cp_get(cp, idx, CP_IMETHODREF);
    const cp_ent *nt = ref ? cp_get(cp, ref->b, CP_NAMEANDTYPE) : NULL;
    *name = nt ? cp_get(cp, nt->a, CP_UTF8) : NULL;
    *desc = nt ? cp_get(cp, nt->b, CP_UTF8) : NULL;
    *owner = ref ? cp_class_name(cp, ref->a, owner_len) : NULL;
    return *owner && *name && *desc;
}

/* Fills c from the instruction at code[pc]; 0 when it is not a call site
 * or its constants are missing. */
static int call_at(const cpool *cp, const uint8_t *code, uint32_t pc, struct bci_call *c)
{
    uint8_t op = code[pc];
    int invoke = op >= OP_INVOKEVIRTUAL && op <= OP_INVOKEINTERFACE;
    if (op != OP_NEW && op != OP_GETSTATIC && op != OP_PUTSTATIC && !invoke) return 0;
    uint32_t idx = be_u2(code + pc + 1);
    c->name = c->desc = NULL;
    if (invoke) {
        const cp_ent *name, *desc;
        if (!method_ref(cp, idx, &c->owner, &c->owner_len, &name, &desc)) return 0;
        c->name = name->s;
        c->name_len = name->slen;
        c->desc = desc->s;
        c->desc_len = desc->slen;
        return 1;
    }
    const cp_ent *field = op == OP_NEW ? NULL : cp_get(cp, idx, CP_FIELDREF);
    c->owner = cp_class_name(cp, op == OP_NEW ? idx : field ? field->a : 0, &c->owner_len);
    return c->owner != NULL;
}

/* The arguments (u2 pool indexes, *nargs of them) of BootstrapMethods entry
 * i, and its method handle in *bsm; NULL if the class has no such entry. */
static const uint8_t *bootstrap(const classfile *cf, uint32_t i, uint16_t *bsm, uint16_t *nargs)
{
    for (uint16_t k = 0; k < cf->nattrs; k++) {
        const cf_attr *a = &cf->attrs[k];
        if (!cp_utf8_eq(&cf->cp, a->name, "BootstrapMethods")) continue;
        rd_t r;
        rd_init(&r, a->data, a->len);
        uint32_t n = rd_u2(&r);
        for (uint32_t e = 0; e < n && !r.err; e++) {
            *bsm = (uint16_t)rd_u2(&r);
            *nargs = (uint16_t)rd_u2(&r);
            const uint8_t *args = rd_bytes(&r, (size_t)*nargs * 2);
            if (e == i) return args;
        }
    }
    return NULL;
}

static struct bci_call indy_call(int32_t line)
{
    static const char name[] = BCI_INDY_NAME;
    return (struct bci_call){.opcode = OP_INVOKEDYNAMIC,
                             .name = (const uint8_t *)name,
                             .name_len = sizeof name - 1,
                             .desc = (const uint8_t *)"",
                             .line = line};
}

/* Fills c from an invokedynamic of LambdaMetafactory at code[pc]; 0 for
 * any other. */
static int lambda_at(const classfile *cf, const uint8_t *code, uint32_t pc, struct bci_call *c)
{
    static const char factory[] = "java/lang/invoke/LambdaMetafactory";
    const cpool *cp = &cf->cp;
    const cp_ent *indy = cp_get(cp, be_u2(code + pc + 1), CP_INVOKEDYNAMIC);
    const cp_ent *nt = indy ? cp_get(cp, indy->b, CP_NAMEANDTYPE) : NULL;
    const cp_ent *sam_name = nt ? cp_get(cp, nt->a, CP_UTF8) : NULL, *name, *desc;
    uint16_t bsm = 0, nargs = 0, blen = 0;
    const uint8_t *args = sam_name ? bootstrap(cf, indy->a, &bsm, &nargs) : NULL, *bowner;
    const cp_ent *handle = args && nargs >= 2 ? cp_get(cp, bsm, CP_METHODHANDLE) : NULL;
    if (!handle || !method_ref(cp, handle->a, &bowner, &blen, &name, &desc) ||
        blen != sizeof factory - 1 || memcmp(bowner, factory, blen) != 0)
        return 0;
    const cp_ent *type = cp_get(cp, be_u2(args), CP_METHODTYPE);
    const cp_ent *sam_desc = type ? cp_get(cp, type->a, CP_UTF8) : NULL;
    const cp_ent *impl = cp_get(cp, be_u2(args + 2), CP_METHODHANDLE);
    if (!sam_desc || !impl || !method_ref(cp, impl->a, &c->owner, &c->owner_len, &name, &desc))
        return 0;
    c->name = sam_name->s;
    c->name_len = sam_name->slen;
    c->desc = sam_desc->s;
    c->desc_len = sam_desc->slen;
    c->impl_name = name->s;
    c->impl_name_len = name->slen;
    c->impl_desc = desc->s;
    c->impl_desc_len = desc->slen;
    return 1;
}

const char *calls_report(const struct bci_hooks *h, const classfile *cf, int mnum,
                         const uint8_t *code, uint32_t len, const int32_t *lines)
{
    const cpool *cp = &cf->cp;
    struct bci_call *calls = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t pc = 0, l; pc < len; pc += l) {
        l = insn_length(code, len, pc);
        if (!l) break;
        /* An invokedynamic is a call of its own (the frames of its linkage),
         * and a LambdaMetafactory one a lambda's too. */
        struct bci_call c[2] = {{.opcode = code[pc], .line = lines[pc]}};
        int k = 0;
        if (c[0].opcode == OP_INVOKEDYNAMIC) {
            c[1] = c[0];
            k = 1 + lambda_at(cf, code, pc, &c[1]);
            c[0] = indy_call(lines[pc]);
        } else {
            k = call_at(cp, code, pc, &c[0]);
        }
        if (n + 2 > cap) {
            struct bci_call *grown = realloc(calls, sizeof *calls * (cap = cap ? 2 * cap : 16));
            if (!grown) {
                free(calls);
                return "out of memory";
            }
            calls = grown;
        }
        for (int j = 0; j < k; j++)
            calls[n++] = c[j];
    }
    struct bci_method_calls mc = {mnum, len ? lines[0] : 0, n, calls};
    h->method_calls(h->ctx, &mc);
    free(calls);
    return NULL;
}

int calls_number(const struct bci_hooks *h, const cpool *cp, int mnum, const uint8_t *code,
                 uint32_t pc, int32_t line)
{
    struct bci_call c = {.opcode = code[pc], .line = line};
    if (c.opcode == OP_INVOKEDYNAMIC)
        c = indy_call(line);
    else if (c.opcode < OP_INVOKEVIRTUAL || c.opcode > OP_INVOKEINTERFACE ||
             !call_at(cp, code, pc, &c))
        return BCI_SKIP;
    return h->call_number(h->ctx, mnum, &c);
}
