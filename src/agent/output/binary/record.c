#include "agent/output/binary/record.h"

#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "format/bytes.h"

#include <stdlib.h>
#include <string.h>

void hp_rec_init(struct hp_rec *r)
{
    r->p = r->small;
    r->len = 0;
    r->cap = sizeof r->small;
    r->oom = false;
}

static bool reserve(struct hp_rec *r, size_t n)
{
    if (r->oom) return false;
    if (r->len + n <= r->cap) return true;
    size_t cap = (r->cap + n) * 2;
    uint8_t *grown = r->p == r->small ? malloc(cap) : realloc(r->p, cap);
    if (grown == NULL) {
        r->oom = true; /* the record is dropped at hp_rec_end */
        return false;
    }
    if (r->p == r->small) memcpy(grown, r->small, r->len);
    r->p = grown;
    r->cap = cap;
    return true;
}

void hp_rec_bytes(struct hp_rec *r, const void *p, size_t n)
{
    if (!reserve(r, n)) return;
    memcpy(r->p + r->len, p, n);
    r->len += n;
}

void hp_rec_u1(struct hp_rec *r, uint8_t v)
{
    hp_rec_bytes(r, &v, 1);
}

void hp_rec_u2(struct hp_rec *r, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    hp_rec_bytes(r, b, 2);
}

void hp_rec_u4(struct hp_rec *r, uint32_t v)
{
    uint8_t b[4];
    hp_put_be32(b, v);
    hp_rec_bytes(r, b, 4);
}

void hp_rec_u8(struct hp_rec *r, uint64_t v)
{
    hp_rec_u4(r, (uint32_t)(v >> 32));
    hp_rec_u4(r, (uint32_t)v);
}

void hp_rec_begin(struct hp_rec *r, uint8_t tag)
{
    hp_rec_init(r);
    hp_rec_u1(r, tag);
    hp_rec_u4(r, hp_record_time());
    hp_rec_u4(r, 0);
}

void hp_rec_free(struct hp_rec *r)
{
    if (r->p != r->small) free(r->p);
    hp_rec_init(r);
}

void hp_rec_end(struct hp_rec *r)
{
    if (!r->oom && r->len >= 9 && r->len - 9 <= UINT32_MAX) {
        hp_put_be32(r->p + 5, (uint32_t)(r->len - 9));
        hp_out_write(r->p, r->len);
    }
    hp_rec_free(r);
}
