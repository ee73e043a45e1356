/* Bounds-checked big-endian reader and size-limited growable writer.
 * Errors are sticky: after the first failure every read returns 0 and every
 * write is dropped, so callers check the flag once at the end of a unit. */
#ifndef BCI_BUF_H
#define BCI_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *p;
    size_t len, pos;
    int err;
} rd_t;

static inline void rd_init(rd_t *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->err = 0;
}

static inline int rd_has(rd_t *r, size_t n)
{
    if (r->err || n > r->len - r->pos) {
        r->err = 1;
        return 0;
    }
    return 1;
}

static inline uint32_t rd_u1(rd_t *r)
{
    if (!rd_has(r, 1)) return 0;
    return r->p[r->pos++];
}

static inline uint32_t rd_u2(rd_t *r)
{
    if (!rd_has(r, 2)) return 0;
    uint32_t v = (uint32_t)r->p[r->pos] << 8 | r->p[r->pos + 1];
    r->pos += 2;
    return v;
}

static inline uint32_t rd_u4(rd_t *r)
{
    if (!rd_has(r, 4)) return 0;
    const uint8_t *b = r->p + r->pos;
    r->pos += 4;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Returns a pointer to the next n bytes and skips them, or NULL. */
static inline const uint8_t *rd_bytes(rd_t *r, size_t n)
{
    if (!rd_has(r, n)) return NULL;
    const uint8_t *b = r->p + r->pos;
    r->pos += n;
    return b;
}

static inline uint32_t be_u2(const uint8_t *b)
{
    return (uint32_t)b[0] << 8 | b[1];
}
static inline uint32_t be_u4(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static inline void put_u2(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}
static inline void put_u4(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

typedef struct {
    uint8_t *p;
    size_t len, cap, limit; /* limit: hard upper bound on len */
    int err;
} wr_t;

void wr_init(wr_t *w, size_t limit);
/* Makes room for n bytes (at most the limit) at once, so that a writer
 * whose size is known roughly does not grow by doubling and copying. */
void wr_reserve(wr_t *w, size_t n);
void wr_free(wr_t *w);
/* Appends n bytes and returns where they go (NULL on error), for patching. */
uint8_t *wr_space(wr_t *w, size_t n);
void wr_bytes(wr_t *w, const void *src, size_t n);
void wr_u1(wr_t *w, uint32_t v);
void wr_u2(wr_t *w, uint32_t v);
void wr_u4(wr_t *w, uint32_t v);

#endif
