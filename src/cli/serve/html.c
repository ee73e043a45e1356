#include "cli/serve/html.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(hp_html *h, size_t more)
{
    if (h->oom) return -1;
    if (h->len + more + 1 <= h->cap) return 0;
    size_t cap = h->cap ? h->cap : 4096;
    while (cap < h->len + more + 1)
        cap *= 2;
    char *n = realloc(h->buf, cap);
    if (!n) {
        h->oom = 1;
        return -1;
    }
    h->buf = n;
    h->cap = cap;
    return 0;
}

static void append(hp_html *h, const char *s, size_t n)
{
    if (reserve(h, n) != 0) return;
    memcpy(h->buf + h->len, s, n);
    h->len += n;
    h->buf[h->len] = '\0';
}

void hp_html_raw(hp_html *h, const char *s)
{
    append(h, s, strlen(s));
}

void hp_html_fmt(hp_html *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(h, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(h->buf + h->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    h->len += (size_t)n;
}

void hp_html_text(hp_html *h, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            hp_html_raw(h, "&amp;");
            break;
        case '<':
            hp_html_raw(h, "&lt;");
            break;
        case '>':
            hp_html_raw(h, "&gt;");
            break;
        case '"':
            hp_html_raw(h, "&quot;");
            break;
        case '\'':
            hp_html_raw(h, "&#39;");
            break;
        default:
            append(h, s, 1);
        }
    }
}

char *hp_html_take(hp_html *h, size_t *len)
{
    char *b = h->oom ? NULL : h->buf;
    *len = h->len;
    if (!b) free(h->buf);
    h->buf = NULL;
    h->len = h->cap = 0;
    return b;
}

void hp_html_free(hp_html *h)
{
    free(h->buf);
    h->buf = NULL;
    h->len = h->cap = 0;
}
