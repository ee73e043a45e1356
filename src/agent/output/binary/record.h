/* Building binary records: big-endian fields into a growable buffer, then
 * one hp_out_write of the whole record (tag, time, length, body). */
#ifndef HPROF_BINARY_RECORD_H
#define HPROF_BINARY_RECORD_H

#include "agent/tables/objid.h"
#include "format/hprof_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* We write 8-byte IDs, like HotSpot's own dumps: object IDs are 64-bit tags. */
#define HP_ID_SIZE 8

struct hp_rec {
    uint8_t *p;
    size_t len, cap;
    bool oom;
    uint8_t small[256];
};

/* Starts a record: tag, time, and a length patched by hp_rec_end. */
void hp_rec_begin(struct hp_rec *r, uint8_t tag);
/* A buffer of raw bytes without a record header (heap dump bodies). */
void hp_rec_init(struct hp_rec *r);
void hp_rec_u1(struct hp_rec *r, uint8_t v);
void hp_rec_u2(struct hp_rec *r, uint16_t v);
void hp_rec_u4(struct hp_rec *r, uint32_t v);
void hp_rec_u8(struct hp_rec *r, uint64_t v);
static inline void hp_rec_id(struct hp_rec *r, uint64_t id)
{
    hp_rec_u8(r, id);
}
void hp_rec_bytes(struct hp_rec *r, const void *p, size_t n);
/* Patches the length, writes the record and frees the buffer. */
void hp_rec_end(struct hp_rec *r);
void hp_rec_free(struct hp_rec *r);

/* The ID of a UTF8 string, writing its UTF8 record the first time. NULL
 * gives 0 (the format's "none"). */
uint64_t hp_bin_string(const char *s);
/* The highest string ID given so far (IDs are 1, 2, ...). */
uint64_t hp_bin_strings_issued(void);
/* A new file: every string is written again before its first use. */
void hp_bin_strings_forget(void);

#endif
