/* Test-side HPROF writer: builds byte buffers record by record. */
#ifndef HPROF_TEST_HPBUILD_H
#define HPROF_TEST_HPBUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *data;
    size_t len, cap;
    uint32_t id_size;
} hb_buf;

/* Writes the header: "JAVA PROFILE <version>", ID size, time stamp 1000000000000 ms. */
void hb_init(hb_buf *b, const char *version, uint32_t id_size);
void hb_free(hb_buf *b);

void hb_u1(hb_buf *b, uint8_t v);
void hb_u2(hb_buf *b, uint16_t v);
void hb_u4(hb_buf *b, uint32_t v);
void hb_u8(hb_buf *b, uint64_t v);
void hb_id(hb_buf *b, uint64_t v);
void hb_bytes(hb_buf *b, const void *p, size_t n);

/* Opens a record (time 0); hb_end() patches its length. */
size_t hb_begin(hb_buf *b, uint8_t tag);
void hb_end(hb_buf *b, size_t rec);

void hb_utf8(hb_buf *b, uint64_t id, const char *s);
void hb_load_class(hb_buf *b, uint32_t serial, uint64_t class_id, uint32_t trace, uint64_t name);
void hb_frame(hb_buf *b, uint64_t id, uint64_t method, uint64_t sig, uint64_t source,
              uint32_t class_serial, int32_t line);
void hb_trace(hb_buf *b, uint32_t serial, uint32_t thread, uint32_t n, const uint64_t *frames);
void hb_start_thread(hb_buf *b, uint32_t serial, uint64_t obj, uint32_t trace, uint64_t name,
                     uint64_t group, uint64_t parent);
void hb_end_thread(hb_buf *b, uint32_t serial);
void hb_control(hb_buf *b, uint32_t flags, uint16_t depth);

/* CLASS DUMP with no constant pool or statics and the given instance fields. */
void hb_class_dump(hb_buf *b, uint64_t id, uint64_t super, uint32_t instance_size, unsigned n,
                   const uint64_t *names, const uint8_t *types);
/* INSTANCE DUMP with raw field bytes. */
void hb_instance(hb_buf *b, uint64_t id, uint32_t trace, uint64_t class_id, const void *vals,
                 uint32_t len);
void hb_obj_array(hb_buf *b, uint64_t id, uint64_t class_id, uint32_t n, const uint64_t *elems);
void hb_prim_array(hb_buf *b, uint64_t id, uint8_t type, uint32_t n, unsigned elem_size);

#endif
