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

/* True if a RuntimeVisibleAnnotations body names an intrinsic annotation. */
static bool annotated(struct rd r, const struct pool *cp)
{
    bool found = false;
    for (uint32_t n = take(&r, 2); n-- && !r.bad;) {
        uint32_t type = (uint32_t)(r.end - r.p) >= 2 ? (uint32_t)(r.p[0] << 8 | r.p[1]) : 0;
        found |= utf8_is(cp, type, "Ljdk/internal/vm/annotation/IntrinsicCandidate;") ||
                 utf8_is(cp, type, "Ljdk/internal/HotSpotIntrinsicCandidate;");
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

static void scan_methods(struct rd *r, const struct pool *cp, struct hp_intrinsics *out)
{
    for (uint32_t n = take(r, 2); n-- && !r->bad;) {
        take(r, 2);
        uint32_t name = take(r, 2), desc = take(r, 2);
        bool hit = false, allocating = false;
        for (uint32_t a = take(r, 2); a-- && !r->bad;) {
            uint32_t aname = take(r, 2), alen = take(r, 4);
            if ((size_t)(r->end - r->p) >= alen) {
                struct rd body = {r->p, r->p + alen, false};
                if (utf8_is(cp, aname, "RuntimeVisibleAnnotations")) hit |= annotated(body, cp);
                if (utf8_is(cp, aname, "Code")) allocating = allocates(body, cp);
            }
            skip(r, alen);
        }
        if (hit && !r->bad && name < cp->n && desc < cp->n && cp->utf8[name] && cp->utf8[desc] &&
            out->n < HP_MAX_INTRINSICS) {
            out->m[out->n].name = cp->utf8[name];
            out->m[out->n].name_len = cp->len[name];
            out->m[out->n].desc = cp->utf8[desc];
            out->m[out->n].desc_len = cp->len[desc];
            out->m[out->n].allocates = allocating;
            out->n++;
        }
    }
}

void hp_intrinsics_scan(const uint8_t *cls, size_t len, struct hp_intrinsics *out)
{
    out->n = 0;
    struct rd r = {cls, cls + len, false};
    struct pool cp = {0};
    skip(&r, 8);
    read_pool(&r, &cp);
    bool mentioned = false;
    for (unsigned i = 1; i < cp.n && !r.bad; i++)
        mentioned |= utf8_is(&cp, i, "Ljdk/internal/vm/annotation/IntrinsicCandidate;") ||
                     utf8_is(&cp, i, "Ljdk/internal/HotSpotIntrinsicCandidate;");
    if (mentioned) {
        skip(&r, 6);
        skip(&r, 2 * (size_t)take(&r, 2)); /* interfaces */
        skip_members(&r);                  /* fields */
        scan_methods(&r, &cp, out);
    }
    free(cp.utf8);
    free(cp.len);
    free(cp.class_name);
}

enum hp_intrinsic hp_intrinsics_kind(const struct hp_intrinsics *in, const char *name,
                                     const char *desc)
{
    size_t nl = strlen(name), dl = strlen(desc);
    for (unsigned i = 0; i < in->n; i++)
        if (in->m[i].name_len == nl && in->m[i].desc_len == dl &&
            !memcmp(in->m[i].name, name, nl) && !memcmp(in->m[i].desc, desc, dl))
            return in->m[i].allocates ? HP_INTRINSIC_ALLOCATING : HP_INTRINSIC;
    return HP_NOT_INTRINSIC;
}
