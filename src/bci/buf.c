#include "bci/buf.h"

#include <stdlib.h>
#include <string.h>

void wr_init(wr_t *w, size_t limit)
{
    memset(w, 0, sizeof *w);
    w->limit = limit;
}

void wr_reserve(wr_t *w, size_t n)
{
    if (n > w->limit) n = w->limit;
    if (w->err || n <= w->cap) return;
    uint8_t *p = realloc(w->p, n);
    if (!p) return; /* wr_space grows it later, or fails then */
    w->p = p;
    w->cap = n;
}

void wr_free(wr_t *w)
{
    free(w->p);
    memset(w, 0, sizeof *w);
}

uint8_t *wr_space(wr_t *w, size_t n)
{
    if (w->err || n > w->limit - w->len) {
        w->err = 1;
        return NULL;
    }
    if (w->len + n > w->cap || !w->p) { /* never NULL on success, even for n == 0 */
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->len + n)
            cap *= 2;
        uint8_t *p = realloc(w->p, cap);
        if (!p) {
            w->err = 1;
            return NULL;
        }
        w->p = p;
        w->cap = cap;
    }
    uint8_t *at = w->p + w->len;
    w->len += n;
    return at;
}

void wr_bytes(wr_t *w, const void *src, size_t n)
{
    uint8_t *d = wr_space(w, n);
    if (d && n) memcpy(d, src, n);
}

void wr_u1(wr_t *w, uint32_t v)
{
    uint8_t *d = wr_space(w, 1);
    if (d) d[0] = (uint8_t)v;
}

void wr_u2(wr_t *w, uint32_t v)
{
    uint8_t *d = wr_space(w, 2);
    if (d) put_u2(d, v);
}

void wr_u4(wr_t *w, uint32_t v)
{
    uint8_t *d = wr_space(w, 4);
    if (d) put_u4(d, v);
}
