#include "agent/instrument/intrinsics.h"

#include "bci/insn.h"

#include <stdlib.h>
#include <string.h>

struct rd {
    const uint8_t *p, *end;
    bool bad;
};

static uint32_t take(struct rd *r, unsigned n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return 0;
    }
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | *r->p++;
    return v;
}

static void skip(struct rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n)
        r->bad = true;
    else
        r->p += n;
}

/* Constant pool: where each Utf8 entry's bytes are (NULL for others), and
 * each Class entry's name index (0 for others). */
struct pool {
    unsigned n;
    const uint8_t **utf8;
    uint16_t *len, *class_name;
};

static bool utf8_is(const struct pool *cp, unsigned i, const char *s)
{
    return i < cp->n && cp->utf8[i] && cp->len[i] == strlen(s) &&
           !memcmp(cp->utf8[i], s, cp->len[i]);
}

static bool ends_with(const struct pool *cp, unsigned i, const char *s)
{
    size_t n = strlen(s);
    return i < cp->n && cp->utf8[i] && cp->len[i] >= n &&
           !memcmp(cp->utf8[i] + cp->len[i] - n, s, n);
}

static void read_pool(struct rd *r, struct pool *cp)
{
    cp->n = take(r, 2);
    cp->utf8 = calloc(cp->n ? cp->n : 1, sizeof *cp->utf8);
    cp->len = calloc(cp->n ? cp->n : 1, sizeof *cp->len);
    cp->class_name = calloc(cp->n ? cp->n : 1, sizeof *cp->class_name);
    if (!cp->utf8 || !cp->len || !cp->class_name) r->bad = true;
    for (unsigned i = 1; i < cp->n && !r->bad; i++) {
        switch (take(r, 1)) {
        case 1: /* Utf8 */
            cp->len[i] = (uint16_t)take(r, 2);
            cp->utf8[i] = r->p;
            skip(r, cp->len[i]);
            break;
        case 7:
            cp->class_name[i] = (uint16_t)take(r, 2);
            break;
        case 8:
        case 16:
        case 19:
        case 20:
            skip(r, 2);
            break;
        case 15:
            skip(r, 3);
            break;
        case 3:
        case 4:
        case 9:
        case 10:
        case 11:
        case 12:
        case 17:
        case 18:
            skip(r, 4);
            break;
        case 5:
        case 6:
            skip(r, 8), i++;
            break;
        default:
            r->bad = true;
        }
    }
}

static void skip_element(struct rd *r, int depth);

static void skip_annotation(struct rd *r, int depth)
{
    skip(r, 2); /* type */
    for (uint32_t n = take(r, 2); n-- && !r->bad;) {
        skip(r, 2);
        skip_element(r, depth);
    }
}

static void skip_element(struct rd *r, int depth)
{
    if (depth > 32) { /* nesting this deep is not a real class file */
        r->bad = true;
        return;
    }
    switch (take(r, 1)) {
    case 'e':
        skip(r, 4);
        break;
    case '@':
        skip_annotation(r, depth + 1);
        break;
    case '[':
        for (uint32_t n = take(r, 2); n-- && !r->bad;)
            skip_element(r, depth + 1);
        break;
    default:
        skip(r, 2); /* constants, strings, classes */
    }
}

static const char *const intrinsic_annotations[] = {
    "Ljdk/internal/vm/annotation/IntrinsicCandidate;", "Ljdk/internal/HotSpotIntrinsicCandidate;"};
static const char *const plumbing_annotations[] = {"Ljdk/internal/vm/annotation/ForceInline;",
                                                   "Ljdk/internal/vm/annotation/Hidden;"};
static const char *const plumbing_packages[] = {"java/lang/invoke/", "jdk/internal/reflect/"};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static bool utf8_in(const struct pool *cp, unsigned i, const char *const *list, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (utf8_is(cp, i, list[k])) return true;
    return false;
}

enum { ANN_INTRINSIC = 1, ANN_PLUMBING = 2 };

/* Which of the annotations sought a RuntimeVisibleAnnotations body names
 * (ANN_* bits; plumbing ones only when `plumbing` is sought). */
static int annotated(struct rd r, const struct pool *cp, bool plumbing)
{
    int found = 0;
    for (uint32_t n = take(&r, 2); n-- && !r.bad;) {
        uint32_t type = (uint32_t)(r.end - r.p) >= 2 ? (uint32_t)(r.p[0] << 8 | r.p[1]) : 0;
        if (utf8_in(cp, type, intrinsic_annotations, COUNT(intrinsic_annotations)))
            found |= ANN_INTRINSIC;
        if (plumbing && utf8_in(cp, type, plumbing_annotations, COUNT(plumbing_annotations)))
            found |= ANN_PLUMBING;
        skip_annotation(&r, 0);
    }
    return found;
}

static void skip_members(struct rd *r)
{
    for (uint32_t n = take(r, 2); n-- && !r->bad;) {
        skip(r, 6);
        for (uint32_t a = take(r, 2); a-- && !r->bad;) {
            skip(r, 2);
            skip(r, take(r, 4));
        }
    }
}

/* True if a Code attribute's body allocates: an array instruction, or a
 * `new` of anything but an ...Exception or ...Error. The JDK's intrinsics
 * make those only to throw them, and JIT replacements throw their own from
 * the runtime (JDK 25's Math.addExact): counted inside, they would count only
 * where not replaced. */
static bool allocates(struct rd r, const struct pool *cp)
{
    skip(&r, 4);
    uint32_t len = take(&r, 4);
    if (r.bad || (size_t)(r.end - r.p) < len) return false;
    const uint8_t *code = r.p;
    for (uint32_t pc = 0, n; pc < len; pc += n) {
        n = insn_length(code, len, pc);
        if (n == 0) return false;
        uint8_t op = code[pc];
        if (op == OP_NEWARRAY || op == OP_ANEWARRAY || op == OP_MULTIANEWARRAY) return true;
        if (op == OP_NEW) {
            unsigned c = (unsigned)code[pc + 1] << 8 | code[pc + 2];
            if (c >= cp->n || !(ends_with(cp, cp->class_name[c], "Exception") ||
                                ends_with(cp, cp->class_name[c], "Error")))
                return true;
        }
    }
    return false;
}

static bool add_method(struct hp_intrinsics *out, const struct pool *cp, uint32_t name,
                       uint32_t desc, bool intrinsic, bool allocating)
{
    if (name >= cp->n || desc >= cp->n || !cp->utf8[name] || !cp->utf8[desc]) return true;
    if (out->n == out->cap) {
        unsigned cap = out->cap ? 2 * out->cap : 16;
        struct hp_special_method *m = realloc(out->m, sizeof *m * cap);
        if (m == NULL) return false;
        out->m = m;
        out->cap = cap;
    }
    out->m[out->n++] = (struct hp_special_method){.name = cp->utf8[name],
                                                  .name_len = cp->len[name],
                                                  .desc = cp->utf8[desc],
                                                  .desc_len = cp->len[desc],
                                                  .intrinsic = intrinsic,
                                                  .allocates = allocating};
    return true;
}

static void scan_methods(struct rd *r, const struct pool *cp, bool plumbing,
                         struct hp_intrinsics *out)
{
    for (uint32_t n = take(r, 2); n-- && !r->bad;) {
        take(r, 2);
        uint32_t name = take(r, 2), desc = take(r, 2);
        int hit = 0;
        bool allocating = false;
        for (uint32_t a = take(r, 2); a-- && !r->bad;) {
            uint32_t aname = take(r, 2), alen = take(r, 4);
            if ((size_t)(r->end - r->p) >= alen) {
                struct rd body = {r->p, r->p + alen, false};
                if (utf8_is(cp, aname, "RuntimeVisibleAnnotations"))
                    hit |= annotated(body, cp, plumbing);
                if (utf8_is(cp, aname, "Code")) allocating = allocates(body, cp);
            }
            skip(r, alen);
        }
        if (hit && !r->bad &&
            !add_method(out, cp, name, desc, (hit & ANN_INTRINSIC) != 0, allocating))
            return;
    }
}

/* Whether this_class (at r) is in a package whose plumbing is sought. */
static bool in_plumbing_package(struct rd r, const struct pool *cp)
{
    skip(&r, 2);
    uint32_t this_class = take(&r, 2);
    if (r.bad || this_class >= cp->n) return false;
    unsigned name = cp->class_name[this_class];
    for (size_t k = 0; k < COUNT(plumbing_packages); k++) {
        size_t len = strlen(plumbing_packages[k]);
        if (name < cp->n && cp->utf8[name] && cp->len[name] > len &&
            !memcmp(cp->utf8[name], plumbing_packages[k], len))
            return true;
    }
    return false;
}

void hp_intrinsics_scan(const uint8_t *cls, size_t len, struct hp_intrinsics *out)
{
    *out = (struct hp_intrinsics){0};
    /* Every annotation sought is in jdk.internal: a class that names
     * nothing there (most outside the JDK) needs no pool parsed. */
    static const char sought[] = "Ljdk/internal/";
    if (memmem(cls, len, sought, sizeof sought - 1) == NULL) return;
    struct rd r = {cls, cls + len, false};
    struct pool cp = {0};
    skip(&r, 8);
    read_pool(&r, &cp);
    bool plumbing = !r.bad && in_plumbing_package(r, &cp);
    bool mentioned = false;
    for (unsigned i = 1; i < cp.n && !r.bad; i++)
        mentioned |=
            utf8_in(&cp, i, intrinsic_annotations, COUNT(intrinsic_annotations)) ||
            (plumbing && utf8_in(&cp, i, plumbing_annotations, COUNT(plumbing_annotations)));
    if (mentioned) {
        skip(&r, 6);
        skip(&r, 2 * (size_t)take(&r, 2)); /* interfaces */
        skip_members(&r);                  /* fields */
        scan_methods(&r, &cp, plumbing, out);
    }
    free(cp.utf8);
    free(cp.len);
    free(cp.class_name);
}

enum hp_intrinsic hp_intrinsics_kind(const struct hp_intrinsics *in, const char *name,
                                     const char *desc)
{
    size_t nl = strlen(name), dl = strlen(desc);
    for (unsigned i = 0; i < in->n; i++) {
        const struct hp_special_method *m = &in->m[i];
        if (m->name_len != nl || m->desc_len != dl || memcmp(m->name, name, nl) ||
            memcmp(m->desc, desc, dl))
            continue;
        if (!m->intrinsic) return HP_MH_PLUMBING;
        return m->allocates ? HP_INTRINSIC_ALLOCATING : HP_INTRINSIC;
    }
    return HP_NOT_INTRINSIC;
}

void hp_intrinsics_free(struct hp_intrinsics *in)
{
    free(in->m);
    *in = (struct hp_intrinsics){0};
}
