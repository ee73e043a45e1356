#include "hpbuild.h"

#include <stdlib.h>
#include <string.h>

static void reserve(hb_buf *b, size_t n)
{
    if (b->len + n <= b->cap) return;
    b->cap = (b->len + n) * 2;
    b->data = realloc(b->data, b->cap);
    if (!b->data) abort();
}

void hb_bytes(hb_buf *b, const void *p, size_t n)
{
    if (n == 0) return; /* p may be NULL then */
    reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void hb_u1(hb_buf *b, uint8_t v)
{
    hb_bytes(b, &v, 1);
}
void hb_u2(hb_buf *b, uint16_t v)
{
    hb_u1(b, (uint8_t)(v >> 8));
    hb_u1(b, (uint8_t)v);
}
void hb_u4(hb_buf *b, uint32_t v)
{
    hb_u2(b, (uint16_t)(v >> 16));
    hb_u2(b, (uint16_t)v);
}
void hb_u8(hb_buf *b, uint64_t v)
{
    hb_u4(b, (uint32_t)(v >> 32));
    hb_u4(b, (uint32_t)v);
}
void hb_id(hb_buf *b, uint64_t v)
{
    if (b->id_size == 4)
        hb_u4(b, (uint32_t)v);
    else
        hb_u8(b, v);
}

void hb_init(hb_buf *b, const char *version, uint32_t id_size)
{
    memset(b, 0, sizeof *b);
    b->id_size = id_size;
    hb_bytes(b, "JAVA PROFILE ", 13);
    hb_bytes(b, version, strlen(version) + 1);
    hb_u4(b, id_size);
    hb_u8(b, 1000000000000ull);
}

void hb_free(hb_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

size_t hb_begin(hb_buf *b, uint8_t tag)
{
    size_t at = b->len;
    hb_u1(b, tag);
    hb_u4(b, 0);
    hb_u4(b, 0);
    return at;
}

void hb_end(hb_buf *b, size_t rec)
{
    uint32_t len = (uint32_t)(b->len - rec - 9);
    uint8_t *p = b->data + rec + 5;
    p[0] = (uint8_t)(len >> 24);
    p[1] = (uint8_t)(len >> 16);
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
}

void hb_utf8(hb_buf *b, uint64_t id, const char *s)
{
    size_t r = hb_begin(b, 0x01);
    hb_id(b, id);
    hb_bytes(b, s, strlen(s));
    hb_end(b, r);
}

void hb_load_class(hb_buf *b, uint32_t serial, uint64_t class_id, uint32_t trace, uint64_t name)
{
    size_t r = hb_begin(b, 0x02);
    hb_u4(b, serial);
    hb_id(b, class_id);
    hb_u4(b, trace);
    hb_id(b, name);
    hb_end(b, r);
}

void hb_frame(hb_buf *b, uint64_t id, uint64_t method, uint64_t sig, uint64_t source,
              uint32_t class_serial, int32_t line)
{
    size_t r = hb_begin(b, 0x04);
    hb_id(b, id);
    hb_id(b, method);
    hb_id(b, sig);
    hb_id(b, source);
    hb_u4(b, class_serial);
    hb_u4(b, (uint32_t)line);
    hb_end(b, r);
}

void hb_trace(hb_buf *b, uint32_t serial, uint32_t thread, uint32_t n, const uint64_t *frames)
{
    size_t r = hb_begin(b, 0x05);
    hb_u4(b, serial);
    hb_u4(b, thread);
    hb_u4(b, n);
    for (uint32_t i = 0; i < n; i++)
        hb_id(b, frames[i]);
    hb_end(b, r);
}

void hb_start_thread(hb_buf *b, uint32_t serial, uint64_t obj, uint32_t trace, uint64_t name,
                     uint64_t group, uint64_t parent)
{
    size_t r = hb_begin(b, 0x0A);
    hb_u4(b, serial);
    hb_id(b, obj);
    hb_u4(b, trace);
    hb_id(b, name);
    hb_id(b, group);
    hb_id(b, parent);
    hb_end(b, r);
}

void hb_end_thread(hb_buf *b, uint32_t serial)
{
    size_t r = hb_begin(b, 0x0B);
    hb_u4(b, serial);
    hb_end(b, r);
}

void hb_control(hb_buf *b, uint32_t flags, uint16_t depth)
{
    size_t r = hb_begin(b, 0x0E);
    hb_u4(b, flags);
    hb_u2(b, depth);
    hb_end(b, r);
}

void hb_class_dump(hb_buf *b, uint64_t id, uint64_t super, uint32_t instance_size, unsigned n,
                   const uint64_t *names, const uint8_t *types)
{
    hb_u1(b, 0x20);
    hb_id(b, id);
    hb_u4(b, 0);
    hb_id(b, super);
    for (int i = 0; i < 5; i++)
        hb_id(b, 0); /* loader, signers, domain, 2 reserved */
    hb_u4(b, instance_size);
    hb_u2(b, 0);
    hb_u2(b, 0);
    hb_u2(b, (uint16_t)n);
    for (unsigned i = 0; i < n; i++) {
        hb_id(b, names[i]);
        hb_u1(b, types[i]);
    }
}

void hb_instance(hb_buf *b, uint64_t id, uint32_t trace, uint64_t class_id, const void *vals,
                 uint32_t len)
{
    hb_u1(b, 0x21);
    hb_id(b, id);
    hb_u4(b, trace);
    hb_id(b, class_id);
    hb_u4(b, len);
    hb_bytes(b, vals, len);
}

void hb_obj_array(hb_buf *b, uint64_t id, uint64_t class_id, uint32_t n, const uint64_t *elems)
{
    hb_u1(b, 0x22);
    hb_id(b, id);
    hb_u4(b, 0);
    hb_u4(b, n);
    hb_id(b, class_id);
    for (uint32_t i = 0; i < n; i++)
        hb_id(b, elems[i]);
}

void hb_prim_array(hb_buf *b, uint64_t id, uint8_t type, uint32_t n, unsigned elem_size)
{
    hb_u1(b, 0x23);
    hb_id(b, id);
    hb_u4(b, 0);
    hb_u4(b, n);
    hb_u1(b, type);
    for (uint32_t i = 0; i < n * elem_size; i++)
        hb_u1(b, (uint8_t)i);
}
