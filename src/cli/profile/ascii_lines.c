/* Line-level parsing of ascii profiles. */
#include "cli/profile/ascii_lines.h"

#include <string.h>

int hp_cursor_next(hp_cursor *c)
{
    if (c->p >= c->end) return 0;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    c->line = c->p;
    c->len = (size_t)((nl ? nl : c->end) - c->p);
    c->p = nl ? nl + 1 : c->end;
    c->lineno++;
    return 1;
}

int hp_cursor_fail(const hp_cursor *c, hp_error *err, const char *what)
{
    return hp_fail(err, c->lineno, "%s at line %llu", what, (unsigned long long)c->lineno);
}

int hp_line_starts(const hp_cursor *c, const char *s)
{
    size_t n = strlen(s);
    return c->len >= n && memcmp(c->line, s, n) == 0;
}

int hp_line_is(const hp_cursor *c, const char *s)
{
    return c->len == strlen(s) && hp_line_starts(c, s);
}

int hp_line_fields(const hp_cursor *c, const char **start, size_t *len, int max)
{
    const char *p = c->line, *end = c->line + c->len;
    int n = 0;
    while (n < max) {
        while (p < end && *p == ' ')
            p++;
        if (p == end) break;
        const char *q = p;
        if (n == max - 1)
            q = end;
        else
            while (q < end && *q != ' ')
                q++;
        start[n] = p;
        len[n++] = (size_t)(q - p);
        p = q;
    }
    return n;
}

int hp_parse_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 19) return -1; /* 19 digits cannot overflow */
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

int hp_parse_percent(const char *s, size_t n, uint64_t *hundredths)
{
    const char *dot = memchr(s, '.', n);
    uint64_t whole, frac;
    if (n < 5 || s[n - 1] != '%' || !dot || s + n - 1 - dot != 3) return -1;
    if (hp_parse_u64(s, (size_t)(dot - s), &whole) || hp_parse_u64(dot + 1, 2, &frac) ||
        whole > 1000000)
        return -1;
    *hundredths = whole * 100 + frac;
    return 0;
}

static int32_t parse_line_number(const char *s, size_t n, int *ok)
{
    uint64_t v;
    *ok = 1;
    if (n == 12 && !memcmp(s, "Unknown line", 12)) return HP_LINE_UNKNOWN;
    if (n == 13 && !memcmp(s, "Native method", 13)) return HP_LINE_NATIVE;
    if (n == 15 && !memcmp(s, "Compiled method", 15)) return HP_LINE_COMPILED;
    if (hp_parse_u64(s, n, &v) == 0 && v > 0 && v <= INT32_MAX) return (int32_t)v;
    *ok = 0;
    return 0;
}

/* "Class.method" ends at the rightmost '(' that has a '.' before it with
 * neither '.' nor '(' in between: JVM method names contain no '.'. */
static const char *method_paren(const char *s, const char *end, const char **dot)
{
    for (const char *q = end; q > s;) {
        q--;
        if (*q != '(') continue;
        const char *d = q;
        while (d > s && d[-1] != '.' && d[-1] != '(')
            d--;
        if (d > s + 1 && d[-1] == '.' && d < q) {
            *dot = d - 1;
            return q;
        }
    }
    return NULL;
}

int hp_parse_frame(hp_profile *p, const char *s, size_t n, hp_pframe *out)
{
    const char *end = s + n, *dot, *colon;
    if (n < 2 || end[-1] != ')') return -1;
    for (colon = end - 1; colon > s && *colon != ':'; colon--)
        ;
    int ok;
    int32_t line = parse_line_number(colon + 1, (size_t)(end - 1 - colon - 1), &ok);
    if (*colon != ':' || !ok) return -1;
    const char *paren = method_paren(s, colon, &dot);
    if (!paren) return -1;
    const char *src = paren + 1;
    size_t src_len = (size_t)(colon - src);
    if (src_len == 16 && !memcmp(src, "<Unknown Source>", 16)) src_len = 0;
    if (!p) return 0;
    *out = (hp_pframe){.func = hp_profile_string(p, s, (size_t)(paren - s)),
                       .cls_len = (uint32_t)(dot - s),
                       .source = hp_profile_string(p, src, src_len),
                       .line = line,
                       .kind = HP_FK_AUTO};
    return out->func == UINT32_MAX || out->source == UINT32_MAX ? -1 : 0;
}

int hp_parse_old_method(hp_profile *p, const char *s, size_t n, hp_pframe *out)
{
    const char *dot, *paren = memchr(s, '(', n);
    if (!paren || !method_paren(s, paren + 1, &dot)) return -1;
    *out = (hp_pframe){.func = hp_profile_string(p, s, (size_t)(paren - s)),
                       .cls_len = (uint32_t)(dot - s),
                       .sig = hp_profile_string(p, paren, (size_t)(s + n - paren)),
                       .kind = HP_FK_AUTO};
    return out->func == UINT32_MAX || out->sig == UINT32_MAX ? -1 : 0;
}
