#include "bci/cpool.h"

#include <stdlib.h>
#include <string.h>

static int cp_reserve(cpool *cp, uint32_t n)
{
    if (n <= cp->cap) return 1;
    uint32_t cap = cp->cap ? cp->cap : 16;
    while (cap < n)
        cap *= 2;
    cp_ent *e = realloc(cp->e, cap * sizeof *e);
    if (!e) return 0;
    cp->e = e;
    cp->cap = cap;
    return 1;
}

const char *cp_parse(cpool *cp, rd_t *r)
{
    memset(cp, 0, sizeof *cp);
    uint32_t n = rd_u2(r);
    if (r->err || n == 0) return "truncated or empty constant pool";
    /* Each entry takes at least 3 bytes, so a huge count on short input fails fast. */
    if ((size_t)(n - 1) * 3 > r->len - r->pos) return "constant pool count exceeds class size";
    if (!cp_reserve(cp, n + 32)) return "out of memory";
    memset(cp->e, 0, n * sizeof *cp->e);
    cp->n = cp->orig_n = n;
    for (uint32_t i = 1; i < n; i++) {
        cp_ent *e = &cp->e[i];
        e->tag = (uint8_t)rd_u1(r);
        switch (e->tag) {
        case CP_UTF8:
            e->slen = (uint16_t)rd_u2(r);
            e->s = rd_bytes(r, e->slen);
            break;
        case CP_INTEGER:
        case CP_FLOAT:
            e->lo = rd_u4(r);
            break;
        case CP_LONG:
        case CP_DOUBLE:
            e->hi = rd_u4(r);
            e->lo = rd_u4(r);
            if (++i >= n) return "long/double entry at end of constant pool";
            break;
        case CP_CLASS:
        case CP_STRING:
        case CP_METHODTYPE:
        case CP_MODULE:
        case CP_PACKAGE:
            e->a = (uint16_t)rd_u2(r);
            break;
        case CP_FIELDREF:
        case CP_METHODREF:
        case CP_IMETHODREF:
        case CP_NAMEANDTYPE:
        case CP_DYNAMIC:
        case CP_INVOKEDYNAMIC:
            e->a = (uint16_t)rd_u2(r);
            e->b = (uint16_t)rd_u2(r);
            break;
        case CP_METHODHANDLE:
            e->kind = (uint8_t)rd_u1(r);
            e->a = (uint16_t)rd_u2(r);
            break;
        default:
            return "unknown constant pool tag";
        }
        if (r->err) return "truncated constant pool";
    }
    return NULL;
}

void cp_free(cpool *cp)
{
    for (uint32_t i = 0; i < cp->nowned; i++)
        free(cp->owned[i]);
    free(cp->owned);
    free(cp->e);
    memset(cp, 0, sizeof *cp);
}

void cp_write(const cpool *cp, wr_t *w)
{
    wr_u2(w, cp->n);
    for (uint32_t i = 1; i < cp->n; i++) {
        const cp_ent *e = &cp->e[i];
        if (e->tag == 0) continue; /* second slot of a long/double */
        wr_u1(w, e->tag);
        switch (e->tag) {
        case CP_UTF8:
            wr_u2(w, e->slen);
            wr_bytes(w, e->s, e->slen);
            break;
        case CP_INTEGER:
        case CP_FLOAT:
            wr_u4(w, e->lo);
            break;
        case CP_LONG:
        case CP_DOUBLE:
            wr_u4(w, e->hi);
            wr_u4(w, e->lo);
            break;
        case CP_METHODHANDLE:
            wr_u1(w, e->kind);
            wr_u2(w, e->a);
            break;
        case CP_FIELDREF:
        case CP_METHODREF:
        case CP_IMETHODREF:
        case CP_NAMEANDTYPE:
        case CP_DYNAMIC:
        case CP_INVOKEDYNAMIC:
            wr_u2(w, e->a);
            wr_u2(w, e->b);
            break;
        default: /* one-index tags */
            wr_u2(w, e->a);
            break;
        }
    }
}

const cp_ent *cp_get(const cpool *cp, uint32_t idx, int tag)
{
    if (idx == 0 || idx >= cp->n || cp->e[idx].tag != tag) return NULL;
    return &cp->e[idx];
}

char *cp_utf8_dup(const cpool *cp, uint32_t idx)
{
    const cp_ent *e = cp_get(cp, idx, CP_UTF8);
    if (!e) return NULL;
    char *s = malloc((size_t)e->slen + 1);
    if (s) {
        memcpy(s, e->s, e->slen);
        s[e->slen] = 0;
    }
    return s;
}

int cp_utf8_eq(const cpool *cp, uint32_t idx, const char *s)
{
    const cp_ent *e = cp_get(cp, idx, CP_UTF8);
    size_t n = strlen(s);
    return e && e->slen == n && memcmp(e->s, s, n) == 0;
}

const uint8_t *cp_class_name(const cpool *cp, uint32_t idx, uint16_t *len)
{
    const cp_ent *c = cp_get(cp, idx, CP_CLASS);
    const cp_ent *u = c ? cp_get(cp, c->a, CP_UTF8) : NULL;
    if (!u) return NULL;
    *len = u->slen;
    return u->s;
}

/* Appended entry equal to *want, searched only among appended entries. */
static uint32_t find_added(const cpool *cp, const cp_ent *want)
{
    for (uint32_t i = cp->orig_n; i < cp->n; i++) {
        const cp_ent *e = &cp->e[i];
        if (e->tag != want->tag || e->a != want->a || e->b != want->b || e->lo != want->lo)
            continue;
        if (e->tag != CP_UTF8 || (e->slen == want->slen && memcmp(e->s, want->s, e->slen) == 0))
            return i;
    }
    return 0;
}

static uint32_t add(cpool *cp, const cp_ent *ent)
{
    uint32_t i = find_added(cp, ent);
    if (i) return i;
    if (cp->n >= 0xFFFF || !cp_reserve(cp, cp->n + 1)) return 0;
    cp->e[cp->n] = *ent;
    return cp->n++;
}

uint32_t cp_add_utf8(cpool *cp, const char *s)
{
    size_t n = strlen(s);
    if (n > 0xFFFF) return 0;
    cp_ent e = {.tag = CP_UTF8, .s = (const uint8_t *)s, .slen = (uint16_t)n};
    uint32_t i = find_added(cp, &e);
    if (i) return i;
    char **owned = realloc(cp->owned, (cp->nowned + 1) * sizeof *owned);
    if (!owned) return 0;
    cp->owned = owned;
    char *copy = malloc(n + 1);
    if (!copy) return 0;
    memcpy(copy, s, n + 1);
    e.s = (const uint8_t *)copy;
    i = add(cp, &e);
    if (!i) {
        free(copy);
        return 0;
    }
    cp->owned[cp->nowned++] = copy;
    return i;
}

uint32_t cp_add_class(cpool *cp, const char *name)
{
    uint32_t u = cp_add_utf8(cp, name);
    cp_ent e = {.tag = CP_CLASS, .a = (uint16_t)u};
    return u ? add(cp, &e) : 0;
}

uint32_t cp_add_int(cpool *cp, int32_t v)
{
    cp_ent e = {.tag = CP_INTEGER, .lo = (uint32_t)v};
    return add(cp, &e);
}

uint32_t cp_add_long(cpool *cp, int64_t v)
{
    /* A method's hooks add their Long together: reuse among the last few
     * appended entries only, as a scan of all would be quadratic in the
     * methods of a class (one Long each). */
    uint32_t from = cp->n - cp->orig_n > 16 ? cp->n - 16 : cp->orig_n;
    for (uint32_t i = cp->n; i-- > from;)
        if (cp->e[i].tag == CP_LONG && cp->e[i].hi == (uint32_t)((uint64_t)v >> 32) &&
            cp->e[i].lo == (uint32_t)v)
            return i;
    cp_ent e = {.tag = CP_LONG, .hi = (uint32_t)((uint64_t)v >> 32), .lo = (uint32_t)v};
    /* Two slots: the second stays unusable (tag 0). */
    if (cp->n + 1 >= 0xFFFF || !cp_reserve(cp, cp->n + 2)) return 0;
    cp->e[cp->n] = e;
    cp->e[cp->n + 1] = (cp_ent){0};
    cp->n += 2;
    return cp->n - 2;
}

uint32_t cp_add_methodref(cpool *cp, const char *cls, const char *name, const char *desc)
{
    uint32_t c = cp_add_class(cp, cls);
    uint32_t n = cp_add_utf8(cp, name);
    uint32_t d = cp_add_utf8(cp, desc);
    if (!c || !n || !d) return 0;
    cp_ent nt = {.tag = CP_NAMEANDTYPE, .a = (uint16_t)n, .b = (uint16_t)d};
    uint32_t t = add(cp, &nt);
    cp_ent m = {.tag = CP_METHODREF, .a = (uint16_t)c, .b = (uint16_t)t};
    return t ? add(cp, &m) : 0;
}
