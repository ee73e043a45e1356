/* One splice's state and the helpers its files share: splice.c runs the
 * passes, splice_io.c reads the JVM's file and changes its bytes,
 * splice_records.c rewrites its records and heap dump sub-records,
 * splice_objects.c keeps track of the objects it dumped and of the array
 * elements citing others. See splice.h for what a splice does. */
#ifndef HPROF_HD_SPLICE_STATE_H
#define HPROF_HD_SPLICE_STATE_H

#include "agent/modes/heap_dump/map.h"
#include "agent/modes/heap_dump/splice.h"
#include "agent/output/binary/record.h"
#include "agent/tables/names.h"
#include "format/bytes.h"
#include "format/hprof_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUF_SIZE ((size_t)4 << 20)
/* The dumped-object bitmap: one bit per 8-byte-aligned address, allocated
 * per MiB of addresses that holds objects. */
#define BLOCK_SHIFT 20
#define BLOCK_BYTES ((size_t)1 << (BLOCK_SHIFT - 6))
/* HotSpot's dummy trace (no frames), cited by every object it dumps. */
#define DUMMY_TRACE 1u
#define MAX_REFS ((size_t)1 << 20)

/* In place: how many more strings than now our table may get in this run
 * before its IDs could reach the JVM's (see README). */
#define NAMES_HEADROOM ((uint64_t)1 << 24)

/* Numbers given to the JVM's serials and frame IDs, above the agent's own
 * (classes from 100000, threads 200000, traces 300000, frames 1...), and
 * never reused in a run: each dump starts where the previous one ended. */
struct hd_sp_ids {
    uint32_t class_base, thread_base, trace_base;
    uint64_t frame_base;
    bool dummy_written;
};
extern struct hd_sp_ids hd_sp_ids;

/* An object array that cited objects not dumped yet (file output). */
struct fix {
    uint64_t in, out; /* offsets of its first element */
    uint32_t n;
};

/* An element of such an array, kept once its part of the file is punched
 * (out: its output offset) or, in place, right away (out: its file offset). */
struct ref {
    uint64_t out, target;
};

/* A serial or ID of the JVM's file to change, in place. */
struct patch {
    uint64_t at, value;
    unsigned size; /* 4 or 8 */
};

struct sp {
    struct hd_splice *pub;
    uint8_t *buf;
    size_t head, len, emitted; /* parsed up to head; written up to emitted */
    uint64_t buf_off;          /* file offset of buf[0] */
    uint64_t out_at_emitted;   /* output offset of buf[emitted] */
    uint64_t seg_start;        /* output offset of the first segment; 0: none yet */
    bool emit, scan, defer, locked;
    bool inplace, refused; /* refused: its IDs could meet ours; copy it */
    struct patch *patches;
    size_t n_patches, cap_patches;
    uint64_t min_object, dump_end;
    uint64_t names_floor; /* in place: the JVM's name IDs must lie above */
    struct hd_map blocks;
    uint64_t cached_key;
    uint8_t *cached;
    size_t n_blocks;
    struct hd_map utf8;  /* JVM's UTF8 ID -> ours */
    struct hd_map texts; /* JVM's UTF8 ID -> offset in arena + 1 */
    char *arena;
    size_t arena_len, arena_cap;
    struct fix *fixes;
    size_t n_fixes, cap_fixes, settled; /* fixes before `settled` are in refs */
    struct ref *refs;
    size_t n_refs;
    bool punching, refs_full;
    uint64_t punched; /* the JVM's file is a hole below this offset */
    uint32_t max_class, max_thread, max_trace;
    uint64_t max_frame;
};

/* Sets the splice's error message (the first one only); returns false. */
bool hd_sp_fail(struct sp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 0 for a type code that is not one. */
static inline unsigned value_size(uint8_t type)
{
    return hp_type_size(type, HP_ID_SIZE);
}

static inline uint32_t thread_of(struct sp *s, uint32_t t)
{
    if (t == 0) return 0;
    if (t > s->max_thread) s->max_thread = t;
    return hd_sp_ids.thread_base + t;
}

static inline uint32_t trace_of(struct sp *s, uint32_t t)
{
    if (t == 0 || t == DUMMY_TRACE) return t;
    if (t > s->max_trace) s->max_trace = t;
    return hd_sp_ids.trace_base + t;
}

static inline uint32_t class_of(struct sp *s, uint32_t c)
{
    if (c > s->max_class) s->max_class = c;
    return hd_sp_ids.class_base + c;
}

static inline uint64_t frame_of(struct sp *s, uint64_t f)
{
    if (f > s->max_frame) s->max_frame = f;
    return hd_sp_ids.frame_base + f;
}

static inline bool utf8_of(struct sp *s, uint64_t id, uint64_t *ours)
{
    *ours = 0;
    return id == 0 || hd_map_get(&s->utf8, id, ours) ||
           hd_sp_fail(s, "the JVM's dump cites a name it did not write (%#llx)",
                      (unsigned long long)id);
}

/* splice_objects.c: the dumped-object bitmap's block of an address (NULL
 * when there is none and !create); elements of object arrays that cite
 * objects not dumped yet; punching the JVM's file; nulling at the end. */
uint8_t *hd_sp_block_slow(struct sp *s, uint64_t key, bool create);

/* Objects come in address order, so the last block nearly always serves. */
static inline uint8_t *block(struct sp *s, uint64_t id, bool create)
{
    uint64_t key = (id >> BLOCK_SHIFT) + 1;
    return key == s->cached_key ? s->cached : hd_sp_block_slow(s, key, create);
}

static inline bool mark(struct sp *s, uint64_t id)
{
    if (!s->scan) return true;
    if (id < s->min_object) s->min_object = id;
    uint8_t *b = block(s, id, true);
    if (b == NULL) return hd_sp_fail(s, "out of memory for the dumped-object bitmap");
    uint64_t bit = (id & (((uint64_t)1 << BLOCK_SHIFT) - 1)) >> 3;
    b[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    s->pub->objects++;
    return true;
}

static inline bool dumped(struct sp *s, uint64_t id)
{
    const uint8_t *b = block(s, id, false);
    uint64_t bit = (id & (((uint64_t)1 << BLOCK_SHIFT) - 1)) >> 3;
    return b && (b[bit >> 3] >> (bit & 7) & 1);
}

bool hd_sp_add_fix(struct sp *s, uint64_t in, uint64_t out, uint32_t n);
bool hd_sp_keep_ref(struct sp *s, const uint8_t *p, uint64_t target, size_t *kept);
void hd_sp_punch(struct sp *s);
bool hd_sp_apply_fixes(struct sp *s);

/* splice_io.c: reading the JVM's file (fill: n bytes at buf + head, waiting
 * while the JVM writes; pass: past n bytes that go out unchanged; flush:
 * writes what is parsed) and changing its bytes. */
bool hd_sp_fill(struct sp *s, size_t n);
bool hd_sp_pass(struct sp *s, uint64_t n);
void hd_sp_flush_parsed(struct sp *s);
void hd_sp_pause(void);
bool hd_sp_set4(struct sp *s, uint8_t *p, uint32_t v);
bool hd_sp_set8(struct sp *s, uint8_t *p, uint64_t v);
bool hd_sp_apply_patches(struct sp *s);

static inline uint64_t out_offset(const struct sp *s, size_t pos)
{
    return s->out_at_emitted + (pos - s->emitted);
}

/* splice_records.c: a top-level record (UTF8, LOAD CLASS, FRAME, TRACE)
 * and the sub-records of a HEAP DUMP SEGMENT of `left` bytes. */
bool hd_sp_record(struct sp *s, uint8_t tag, uint8_t *body, uint32_t len);
bool hd_sp_segment(struct sp *s, uint64_t left);

#endif
