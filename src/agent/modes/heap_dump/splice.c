#include "agent/modes/heap_dump/splice.h"

#include "agent/io/writer.h"
#include "agent/modes/heap_dump/map.h"
#include "agent/output/binary/record.h"
#include "agent/tables/names.h"
#include "agent/tables/objid.h"
#include "format/hprof_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE ((size_t)4 << 20)
/* The dumped-object bitmap: one bit per 8-byte-aligned address, allocated
 * per MiB of addresses that holds objects. */
#define BLOCK_SHIFT 20
#define BLOCK_BYTES ((size_t)1 << (BLOCK_SHIFT - 6))
/* HotSpot's dummy trace (no frames), cited by every object it dumps. */
#define DUMMY_TRACE 1u

/* Numbers given to the JVM's serials and frame IDs, above the agent's own
 * (classes from 100000, threads 200000, traces 300000, frames 1...), and
 * never reused in a run: each dump starts where the previous one ended. */
static struct {
    uint32_t class_base, thread_base, trace_base;
    uint64_t frame_base;
    bool dummy_written;
} ids = {0x40000000u, 0x40000000u, 0x40000000u, (uint64_t)1 << 32, false};

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
#define MAX_REFS ((size_t)1 << 20)

/* In place: how many more strings than now our table may get in this run
 * before its IDs could reach the JVM's (see README). */
#define NAMES_HEADROOM ((uint64_t)1 << 24)

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

static bool fail(struct sp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct sp *s, const char *fmt, ...)
{
    if (s->pub->error[0]) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->pub->error, sizeof s->pub->error, fmt, ap);
    va_end(ap);
    return false;
}

static uint16_t be2(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static uint32_t be4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be8(const uint8_t *p)
{
    return (uint64_t)be4(p) << 32 | be4(p + 4);
}
static void put4(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static void put8(uint8_t *p, uint64_t v)
{
    put4(p, (uint32_t)(v >> 32));
    put4(p + 4, (uint32_t)v);
}

/* 0 for a type code that is not one. */
static unsigned value_size(uint8_t type)
{
    return hp_type_size(type, HP_ID_SIZE);
}

static uint32_t thread_of(struct sp *s, uint32_t t)
{
    if (t == 0) return 0;
    if (t > s->max_thread) s->max_thread = t;
    return ids.thread_base + t;
}
static uint32_t trace_of(struct sp *s, uint32_t t)
{
    if (t == 0 || t == DUMMY_TRACE) return t;
    if (t > s->max_trace) s->max_trace = t;
    return ids.trace_base + t;
}
static uint32_t class_of(struct sp *s, uint32_t c)
{
    if (c > s->max_class) s->max_class = c;
    return ids.class_base + c;
}
static uint64_t frame_of(struct sp *s, uint64_t f)
{
    if (f > s->max_frame) s->max_frame = f;
    return ids.frame_base + f;
}
static bool utf8_of(struct sp *s, uint64_t id, uint64_t *ours)
{
    *ours = 0;
    return id == 0 || hd_map_get(&s->utf8, id, ours) ||
           fail(s, "the JVM's dump cites a name it did not write (%#llx)", (unsigned long long)id);
}

/* Sets the u4 (or u8) at p, in buf: in the buffer when copying, as a patch
 * of the JVM's file when taking it in place, not at all when only scanning. */
static bool set_n(struct sp *s, uint8_t *p, uint64_t v, unsigned size)
{
    if (s->emit) {
        if (size == 4)
            put4(p, (uint32_t)v);
        else
            put8(p, v);
        return true;
    }
    if (!s->inplace || (size == 4 ? be4(p) : be8(p)) == v) return true;
    if (s->n_patches == s->cap_patches) {
        size_t cap = s->cap_patches ? s->cap_patches * 2 : 4096;
        struct patch *grown = realloc(s->patches, cap * sizeof *grown);
        if (grown == NULL) return fail(s, "out of memory for the dump's serials");
        s->patches = grown;
        s->cap_patches = cap;
    }
    s->patches[s->n_patches++] = (struct patch){s->buf_off + (uint64_t)(p - s->buf), v, size};
    return true;
}
static bool set4(struct sp *s, uint8_t *p, uint32_t v)
{
    return set_n(s, p, v, 4);
}
static bool set8(struct sp *s, uint8_t *p, uint64_t v)
{
    return set_n(s, p, v, 8);
}

/* --- the dumped-object bitmap -------------------------------------------- */

static uint8_t *block_slow(struct sp *s, uint64_t key, bool create)
{
    uint64_t v;
    uint8_t *b = NULL;
    if (hd_map_get(&s->blocks, key, &v)) {
        b = (uint8_t *)(uintptr_t)v;
    } else if (create) {
        b = calloc(1, BLOCK_BYTES);
        if (b == NULL || !hd_map_put(&s->blocks, key, (uint64_t)(uintptr_t)b)) {
            free(b);
            return NULL;
        }
        s->n_blocks++;
    }
    if (b) {
        s->cached_key = key;
        s->cached = b;
    }
    return b;
}

/* Objects come in address order, so the last block nearly always serves. */
static inline uint8_t *block(struct sp *s, uint64_t id, bool create)
{
    uint64_t key = (id >> BLOCK_SHIFT) + 1;
    return key == s->cached_key ? s->cached : block_slow(s, key, create);
}

static bool mark(struct sp *s, uint64_t id)
{
    if (!s->scan) return true;
    if (id < s->min_object) s->min_object = id;
    uint8_t *b = block(s, id, true);
    if (b == NULL) return fail(s, "out of memory for the dumped-object bitmap");
    uint64_t bit = (id & (((uint64_t)1 << BLOCK_SHIFT) - 1)) >> 3;
    b[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    s->pub->objects++;
    return true;
}

static bool dumped(struct sp *s, uint64_t id)
{
    const uint8_t *b = block(s, id, false);
    uint64_t bit = (id & (((uint64_t)1 << BLOCK_SHIFT) - 1)) >> 3;
    return b && (b[bit >> 3] >> (bit & 7) & 1);
}

/* --- reading the JVM's file ---------------------------------------------- */

/* Writes what is parsed and not yet written. */
static void punch(struct sp *s);

static void flush_parsed(struct sp *s)
{
    if (s->emit && s->head > s->emitted) hp_out_write(s->buf + s->emitted, s->head - s->emitted);
    s->emitted = s->head;
    if (s->emit) s->out_at_emitted = hp_out_offset();
    if (s->punching) punch(s);
}

static uint64_t out_offset(const struct sp *s, size_t pos)
{
    return s->out_at_emitted + (pos - s->emitted);
}

static void pause_briefly(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* Makes n bytes available at buf + head, waiting while the JVM writes. */
static bool fill(struct sp *s, size_t n)
{
    if (n > BUF_SIZE) return fail(s, "a record of the JVM's dump is too large (%zu bytes)", n);
    while (s->len - s->head < n) {
        if (BUF_SIZE - s->head < n) {
            flush_parsed(s);
            memmove(s->buf, s->buf + s->head, s->len - s->head);
            s->buf_off += s->head;
            s->len -= s->head;
            s->head = s->emitted = 0;
        }
        /* Read the state first: once the JVM is done, one read sees all. */
        int state = atomic_load(&s->pub->jvm);
        ssize_t r =
            pread(s->pub->fd, s->buf + s->len, BUF_SIZE - s->len, (off_t)(s->buf_off + s->len));
        if (r > 0) {
            s->len += (size_t)r;
            s->pub->in_bytes = s->buf_off + s->len;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return fail(s, "cannot read the JVM's dump: %s", strerror(errno));
        if (state == HD_JVM_FAILED) return fail(s, "the JVM's dumper failed");
        if (state == HD_JVM_DONE) return fail(s, "the JVM's dump ends in the middle of a record");
        pause_briefly();
    }
    return true;
}

/* Moves past n bytes that go out unchanged. */
static bool pass(struct sp *s, uint64_t n)
{
    while (n > 0) {
        if (s->head == s->len && !fill(s, 1)) return false;
        size_t k = s->len - s->head;
        if (k > n) k = (size_t)n;
        s->head += k;
        n -= k;
    }
    return true;
}

/* --- top-level records ----------------------------------------------------- */

/* The shape of a record both the copy and the in-place pass rely on. */
static bool well_formed(struct sp *s, uint8_t tag, const uint8_t *b, uint32_t len)
{
    switch (tag) {
    case HP_UTF8:
        return len >= HP_ID_SIZE || fail(s, "short UTF8 record in the JVM's dump");
    case HP_LOAD_CLASS:
        return len == hp_load_class_size(HP_ID_SIZE) ||
               fail(s, "bad LOAD CLASS record in the JVM's dump");
    case HP_FRAME:
        return len == hp_frame_size(HP_ID_SIZE) || fail(s, "bad FRAME record in the JVM's dump");
    case HP_TRACE:
        return (len >= HP_TRACE_FIXED_SIZE && (len - HP_TRACE_FIXED_SIZE) % HP_ID_SIZE == 0 &&
                be4(b + 8) == (len - HP_TRACE_FIXED_SIZE) / HP_ID_SIZE) ||
               fail(s, "bad TRACE record in the JVM's dump");
    default:
        return fail(s, "unexpected record (tag %#x) in the JVM's dump", tag);
    }
}

static bool utf8(struct sp *s, const uint8_t *b, uint32_t len)
{
    uint64_t id = be8(b);
    size_t n = len - HP_ID_SIZE;
    if (s->arena_len + n + 1 > s->arena_cap) {
        size_t cap = (s->arena_cap + n + 1) * 2;
        char *grown = realloc(s->arena, cap);
        if (grown == NULL) return fail(s, "out of memory for the JVM's names");
        s->arena = grown;
        s->arena_cap = cap;
    }
    char *text = s->arena + s->arena_len;
    memcpy(text, b + HP_ID_SIZE, n);
    text[n] = '\0';
    uint64_t ours = hp_bin_string(text);
    if (ours == 0 || !hd_map_put(&s->utf8, id, ours) ||
        !hd_map_put(&s->texts, id, s->arena_len + 1))
        return fail(s, "out of memory for the JVM's names");
    s->arena_len += n + 1;
    return true;
}

/* "java/lang/String" -> "java.lang.String", "[I" -> "int[]", as our LOAD CLASS. */
static uint64_t class_name(struct sp *s, uint64_t id)
{
    uint64_t at;
    if (!hd_map_get(&s->texts, id, &at)) return 0;
    const char *internal = s->arena + at - 1;
    size_t n = strlen(internal);
    char *sig = malloc(n + 3);
    if (sig == NULL) return 0;
    if (internal[0] == '[')
        memcpy(sig, internal, n + 1);
    else
        snprintf(sig, n + 3, "L%s;", internal);
    char *name = hp_sig_to_name(sig);
    free(sig);
    uint64_t ours = name ? hp_bin_string(name) : 0;
    free(name);
    return ours;
}

static bool load_class(struct sp *s, const uint8_t *b)
{
    uint64_t name = class_name(s, be8(b + 16));
    if (name == 0) return fail(s, "a LOAD CLASS of the JVM's dump has no name");
    struct hp_rec r;
    hp_rec_begin(&r, HP_LOAD_CLASS);
    hp_rec_u4(&r, class_of(s, be4(b)));
    hp_rec_id(&r, be8(b + 4));
    hp_rec_u4(&r, trace_of(s, be4(b + 12)));
    hp_rec_id(&r, name);
    hp_rec_end(&r);
    return true;
}

static bool frame(struct sp *s, const uint8_t *b)
{
    uint64_t method, sig, source;
    if (!utf8_of(s, be8(b + 8), &method) || !utf8_of(s, be8(b + 16), &sig) ||
        !utf8_of(s, be8(b + 24), &source))
        return false;
    struct hp_rec r;
    hp_rec_begin(&r, HP_FRAME);
    hp_rec_id(&r, frame_of(s, be8(b)));
    hp_rec_id(&r, method);
    hp_rec_id(&r, sig);
    hp_rec_id(&r, source);
    hp_rec_u4(&r, class_of(s, be4(b + 32)));
    hp_rec_u4(&r, be4(b + 36));
    hp_rec_end(&r);
    return true;
}

static bool trace(struct sp *s, const uint8_t *b)
{
    uint32_t serial = be4(b), n = be4(b + 8);
    if (serial == DUMMY_TRACE && (n != 0 || ids.dummy_written)) {
        if (n == 0) return true;
        return fail(s, "the JVM's dump has frames in trace 1");
    }
    struct hp_rec r;
    hp_rec_begin(&r, HP_TRACE);
    hp_rec_u4(&r, trace_of(s, serial));
    hp_rec_u4(&r, thread_of(s, be4(b + 4)));
    hp_rec_u4(&r, n);
    for (uint32_t i = 0; i < n; i++)
        hp_rec_id(&r, frame_of(s, be8(b + 12 + (size_t)i * HP_ID_SIZE)));
    hp_rec_end(&r);
    if (serial == DUMMY_TRACE) ids.dummy_written = true;
    return true;
}

/* In place: the JVM's names and their IDs stay; classes, frames, traces and
 * threads get the numbers the copy would give them. */
static bool record_in_place(struct sp *s, uint8_t tag, uint8_t *b)
{
    switch (tag) {
    case HP_UTF8:
        /* Theirs are addresses (JDK 25 maps symbols below 4 GiB), ours 1, 2,
         * ...: refused if ours could reach theirs in this run. */
        if (be8(b) <= s->names_floor) {
            s->refused = true;
            s->pub->refusal = "a name ID as low as ours";
        }
        return !s->refused;
    case HP_LOAD_CLASS:
        return set4(s, b, class_of(s, be4(b))) && set4(s, b + 12, trace_of(s, be4(b + 12)));
    case HP_FRAME:
        return set8(s, b, frame_of(s, be8(b))) && set4(s, b + 32, class_of(s, be4(b + 32)));
    default: { /* HP_TRACE */
        bool ok = set4(s, b, trace_of(s, be4(b))) && set4(s, b + 4, thread_of(s, be4(b + 4)));
        for (uint32_t i = 0, n = be4(b + 8); ok && i < n; i++) {
            uint8_t *f = b + 12 + (size_t)i * HP_ID_SIZE;
            ok = set8(s, f, frame_of(s, be8(f)));
        }
        return ok;
    }
    }
}

static bool record(struct sp *s, uint8_t tag, uint8_t *body, uint32_t len)
{
    if (!s->inplace && !s->emit) return true;
    if (!well_formed(s, tag, body, len)) return false;
    if (s->inplace) return record_in_place(s, tag, body);
    switch (tag) {
    case HP_UTF8:
        return utf8(s, body, len);
    case HP_LOAD_CLASS:
        return load_class(s, body);
    case HP_FRAME:
        return frame(s, body);
    default: /* HP_TRACE */
        return trace(s, body);
    }
}

/* --- heap dump sub-records ------------------------------------------------- */

/* The size of the CLASS DUMP at head, reading until all of it is there:
 * constant pool (index, type, value), statics (name, type, value), instance
 * fields (name, type). */
static bool class_dump(struct sp *s, uint64_t *size)
{
    const size_t fixed = 1 + hp_class_dump_fixed_size(HP_ID_SIZE); /* up to the pool */
    size_t want = fixed + 2;
    for (;;) {
        if (!fill(s, want)) return false;
        const uint8_t *p = s->buf + s->head;
        size_t avail = s->len - s->head, q = fixed;
        bool whole = true;
        for (int part = 0; part < 3 && whole; part++) {
            size_t entry = part == 0 ? 3 : HP_ID_SIZE + 1;
            whole = q + 2 <= avail;
            uint16_t n = whole ? be2(p + q) : 0;
            q += 2;
            for (uint16_t i = 0; i < n && whole; i++) {
                whole = q + entry <= avail;
                unsigned v = whole ? value_size(p[q + entry - 1]) : 1;
                if (v == 0) return fail(s, "bad field type in a CLASS DUMP of the JVM's dump");
                q += entry + (part < 2 ? v : 0);
            }
        }
        if (whole && q <= avail) {
            *size = q;
            return true;
        }
        want = avail + 1;
    }
}

/* Gives the names of a CLASS DUMP's fields our UTF8 IDs. */
static bool class_names(struct sp *s, uint8_t *p)
{
    size_t q = 1 + hp_sub_trace_at(HP_ID_SIZE);
    put4(p + q, trace_of(s, be4(p + q)));
    q = 1 + hp_class_dump_fixed_size(HP_ID_SIZE);
    uint16_t n = be2(p + q);
    q += 2;
    for (uint16_t i = 0; i < n; i++)
        q += 3 + value_size(p[q + 2]);
    for (int part = 0; part < 2; part++) {
        n = be2(p + q);
        q += 2;
        for (uint16_t i = 0; i < n; i++) {
            uint64_t ours;
            if (!utf8_of(s, be8(p + q), &ours)) return false;
            put8(p + q, ours);
            q += HP_ID_SIZE + 1 + (part == 0 ? value_size(p[q + HP_ID_SIZE]) : 0);
        }
    }
    return true;
}

static bool add_fix(struct sp *s, uint64_t in, uint64_t out, uint32_t n)
{
    if (s->n_fixes == s->cap_fixes) {
        size_t cap = s->cap_fixes ? s->cap_fixes * 2 : 1024;
        struct fix *grown = realloc(s->fixes, cap * sizeof *grown);
        if (grown == NULL) return fail(s, "out of memory for the array fix-up list");
        s->fixes = grown;
        s->cap_fixes = cap;
    }
    s->fixes[s->n_fixes++] = (struct fix){in, out, n};
    return true;
}

static bool ref_room(struct sp *s);

/* In place, an element citing an object not dumped yet is kept (objects come
 * in address order, so most are dumped soon after and dropped when room is
 * needed); without room, its array is re-read at the end. */
static bool keep_ref(struct sp *s, const uint8_t *p, uint64_t target, size_t *kept)
{
    if (!s->inplace || *kept == SIZE_MAX || !ref_room(s)) {
        s->n_refs -= *kept == SIZE_MAX ? 0 : *kept;
        *kept = SIZE_MAX;
        return false;
    }
    s->refs[s->n_refs++] = (struct ref){s->buf_off + (uint64_t)(p - s->buf), target};
    ++*kept;
    return true;
}

static bool elements(struct sp *s, uint32_t n)
{
    uint64_t in = s->buf_off + s->head, out = out_offset(s, s->head);
    bool ahead = false;
    size_t kept = 0; /* refs kept from this array; SIZE_MAX: none, re-read it */
    for (uint32_t left = n; left > 0;) {
        if (!fill(s, HP_ID_SIZE)) return false;
        size_t k = (s->len - s->head) / HP_ID_SIZE;
        if (k > left) k = left;
        uint8_t *p = s->buf + s->head;
        if (s->emit || s->defer)
            for (size_t i = 0; i < k; i++, p += HP_ID_SIZE) {
                uint64_t e = be8(p);
                if (e == 0 || dumped(s, e)) continue;
                if (s->defer) {
                    ahead = ahead || !keep_ref(s, p, e, &kept);
                } else {
                    memset(p, 0, HP_ID_SIZE);
                    s->pub->nulled++;
                }
            }
        s->head += k * HP_ID_SIZE;
        left -= (uint32_t)k;
    }
    return !ahead || add_fix(s, in, out, n);
}

/* GC roots whose object ID is followed by a thread serial. */
static bool root_with_thread(uint8_t tag)
{
    return tag == HP_ROOT_JNI_LOCAL || tag == HP_ROOT_JAVA_FRAME || tag == HP_ROOT_NATIVE_STACK ||
           tag == HP_ROOT_THREAD_BLOCK || tag == HP_ROOT_THREAD_OBJECT;
}

static bool segment(struct sp *s, uint64_t left)
{
    const size_t id_at = 1, trace_at = 1 + hp_sub_trace_at(HP_ID_SIZE);
    while (left > 0) {
        if (!fill(s, 1)) return false;
        uint8_t t = s->buf[s->head];
        uint64_t size = hp_root_size(t, HP_ID_SIZE), body = 0;
        uint8_t *p;
        if (size) {
            size += 1;
            if (!fill(s, size)) return false;
            p = s->buf + s->head;
            const size_t thread_at = id_at + HP_ID_SIZE;
            if (root_with_thread(t) && !set4(s, p + thread_at, thread_of(s, be4(p + thread_at))))
                return false;
            if (t == HP_ROOT_THREAD_OBJECT &&
                !set4(s, p + thread_at + 4, trace_of(s, be4(p + thread_at + 4))))
                return false;
        } else if (t == HP_CLASS_DUMP) {
            if (!class_dump(s, &size)) return false;
            p = s->buf + s->head;
            if (!mark(s, be8(p + id_at)) || (s->emit && !class_names(s, p)) ||
                (s->inplace && !set4(s, p + trace_at, trace_of(s, be4(p + trace_at)))))
                return false;
        } else if (t == HP_INSTANCE_DUMP || t == HP_OBJ_ARRAY_DUMP || t == HP_PRIM_ARRAY_DUMP) {
            size = 1 + (t == HP_INSTANCE_DUMP    ? hp_instance_dump_fixed_size(HP_ID_SIZE)
                        : t == HP_OBJ_ARRAY_DUMP ? hp_obj_array_dump_fixed_size(HP_ID_SIZE)
                                                 : hp_prim_array_dump_fixed_size(HP_ID_SIZE));
            if (!fill(s, size)) return false;
            p = s->buf + s->head;
            uint32_t n = be4(p + 1 +
                             (t == HP_INSTANCE_DUMP ? hp_instance_dump_count_at(HP_ID_SIZE)
                                                    : hp_array_dump_count_at(HP_ID_SIZE)));
            uint8_t elem = p[size - 1]; /* a primitive array's element type */
            unsigned esz = t == HP_INSTANCE_DUMP    ? 1
                           : t == HP_OBJ_ARRAY_DUMP ? HP_ID_SIZE
                                                    : value_size(elem);
            if (esz == 0 || (t == HP_PRIM_ARRAY_DUMP && elem == HP_T_OBJECT))
                return fail(s, "bad array type in the JVM's dump");
            body = (uint64_t)n * esz;
            if (!mark(s, be8(p + id_at)) || !set4(s, p + trace_at, trace_of(s, be4(p + trace_at))))
                return false;
        } else {
            return fail(s, "unknown heap dump sub-record %#x in the JVM's dump", t);
        }
        if (size + body > left) return fail(s, "a sub-record crosses a segment of the JVM's dump");
        s->head += size;
        left -= size + body;
        if (t == HP_OBJ_ARRAY_DUMP ? !elements(s, (uint32_t)(body / HP_ID_SIZE)) : !pass(s, body))
            return false;
    }
    return true;
}

/* --- passes ---------------------------------------------------------------- */

static bool header(struct sp *s)
{
    const size_t id_size_at = sizeof HP_VERSION_1_0_2; /* after the NUL */
    if (!fill(s, HP_HEADER_SIZE)) return false;
    if (memcmp(s->buf, HP_VERSION_1_0_2, sizeof HP_VERSION_1_0_2) != 0)
        return fail(s, "the JVM's dump is not HPROF 1.0.2");
    if (be4(s->buf + id_size_at) != HP_ID_SIZE)
        return fail(s, "the JVM's dump has %u-byte IDs", be4(s->buf + id_size_at));
    s->head = s->emitted = HP_HEADER_SIZE;
    return true;
}

static bool run_pass(struct sp *s)
{
    s->head = s->len = s->emitted = 0;
    s->buf_off = 0;
    if (!header(s)) return false;
    if (s->emit) {
        hp_out_lock();
        s->locked = true;
        s->out_at_emitted = hp_out_offset();
    }
    for (;;) {
        if (!fill(s, HP_RECORD_HEADER_SIZE)) return false;
        uint8_t tag = s->buf[s->head];
        uint32_t len = be4(s->buf + s->head + 5);
        if (tag == HP_HEAP_DUMP_SEGMENT) {
            if (s->emit && s->seg_start == 0) s->seg_start = out_offset(s, s->head);
            s->head += HP_RECORD_HEADER_SIZE;
            if (!segment(s, len)) return false;
        } else if (tag == HP_HEAP_DUMP_END) {
            if (len != 0 || (s->emit && s->seg_start == 0))
                return fail(s, "misplaced HEAP DUMP END in the JVM's dump");
            s->head += HP_RECORD_HEADER_SIZE;
            s->dump_end = s->buf_off + s->head;
            flush_parsed(s);
            return true;
        } else {
            if (!fill(s, HP_RECORD_HEADER_SIZE + (size_t)len)) return false;
            flush_parsed(s);
            uint8_t *b = s->buf + s->head + HP_RECORD_HEADER_SIZE;
            s->head += HP_RECORD_HEADER_SIZE + (size_t)len;
            s->emitted = s->head;
            if (!record(s, tag, b, len)) return false;
            if (s->emit) s->out_at_emitted = hp_out_offset();
        }
    }
}

/* Room for one more kept element: drops those whose object has been dumped
 * since. Once that frees less than a quarter, there is no more room for this
 * dump (so the list is not scanned again and again). */
static bool ref_room(struct sp *s)
{
    if (s->refs_full) return false;
    if (s->refs == NULL) s->refs = malloc(MAX_REFS * sizeof *s->refs);
    if (s->refs == NULL) return false;
    if (s->n_refs < MAX_REFS) return true;
    size_t kept = 0;
    for (size_t i = 0; i < s->n_refs; i++)
        if (!dumped(s, s->refs[i].target)) s->refs[kept++] = s->refs[i];
    s->n_refs = kept;
    s->refs_full = kept > MAX_REFS / 4 * 3;
    return !s->refs_full;
}

/* Reads the elements of a listed array (a small read each: this runs while
 * buf is in use) and keeps those whose object is not dumped yet. false when
 * there is no room: the file is then no longer punched, and the array is
 * checked at the end like the arrays after it. */
static bool settle(struct sp *s, const struct fix *x)
{
    size_t before = s->n_refs;
    uint8_t ids_buf[4096];
    for (uint32_t i = 0; i < x->n;) {
        uint32_t k =
            x->n - i < sizeof ids_buf / HP_ID_SIZE ? x->n - i : sizeof ids_buf / HP_ID_SIZE;
        size_t bytes = (size_t)k * HP_ID_SIZE;
        if (pread(s->pub->fd, ids_buf, bytes, (off_t)(x->in + (uint64_t)i * HP_ID_SIZE)) !=
            (ssize_t)bytes)
            goto undo;
        for (uint32_t j = 0; j < k; j++) {
            uint64_t e = be8(ids_buf + (size_t)j * HP_ID_SIZE);
            if (e == 0 || dumped(s, e)) continue;
            if (!ref_room(s)) goto undo;
            s->refs[s->n_refs++] = (struct ref){x->out + (uint64_t)(i + j) * HP_ID_SIZE, e};
        }
        i += k;
    }
    return true;
undo:
    if (s->n_refs > before) s->n_refs = before;
    return false;
}

/* Drops the pages of the JVM's file copied punch_lag bytes ago. */
static void punch(struct sp *s)
{
    uint64_t done = s->buf_off + s->emitted;
    if (done < s->pub->punch_lag) return;
    uint64_t to = (done - s->pub->punch_lag) & ~(uint64_t)4095;
    if (to <= s->punched) return;
    for (; s->settled < s->n_fixes && s->fixes[s->settled].in < to; s->settled++)
        if (!settle(s, &s->fixes[s->settled])) {
            s->punching = false;
            return;
        }
    if (fallocate(s->pub->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)s->punched,
                  (off_t)(to - s->punched)) != 0) {
        s->punching = false;
        return;
    }
    s->punched = s->pub->punched = to;
}

/* Nulls the reference at `in` of the JVM's file (in place) or `out` of the
 * output. */
static bool null_ref(struct sp *s, uint64_t in, uint64_t out)
{
    static const uint8_t null_id[HP_ID_SIZE];
    bool ok = s->inplace ? pwrite(s->pub->fd, null_id, HP_ID_SIZE, (off_t)in) == HP_ID_SIZE
                         : hp_out_patch(out, null_id, HP_ID_SIZE);
    if (ok) s->pub->nulled++;
    return ok || fail(s, "cannot null a reference in the dump");
}

/* Nulls the elements of arrays that cited objects the dump never held. The
 * arrays are re-read in file order through the (now free) buffer. */
static bool apply_fixes(struct sp *s)
{
    for (size_t i = 0; i < s->n_refs; i++)
        if (!dumped(s, s->refs[i].target) && !null_ref(s, s->refs[i].out, s->refs[i].out))
            return false;
    uint64_t start = 0, end = 0; /* the file bytes in buf */
    for (size_t f = s->settled; f < s->n_fixes; f++) {
        const struct fix *x = &s->fixes[f];
        for (uint64_t i = 0; i < x->n; i++) {
            uint64_t at = x->in + i * HP_ID_SIZE;
            if (at < start || at + HP_ID_SIZE > end) {
                ssize_t r = pread(s->pub->fd, s->buf, BUF_SIZE, (off_t)at);
                if (r < HP_ID_SIZE) return fail(s, "cannot re-read the JVM's dump");
                start = at;
                end = at + (uint64_t)r;
            }
            uint64_t e = be8(s->buf + (at - start));
            if (e != 0 && !dumped(s, e) && !null_ref(s, at, x->out + i * HP_ID_SIZE)) return false;
        }
    }
    return true;
}

/* Writes the patches into the JVM's file, a block at a time (they come in
 * file order, mostly close together), through the (now free) buffer. */
static bool apply_patches(struct sp *s)
{
    const size_t block = (size_t)64 << 10;
    for (size_t i = 0; i < s->n_patches;) {
        uint64_t start = s->patches[i].at;
        ssize_t got = pread(s->pub->fd, s->buf, block, (off_t)start);
        if (got < 8) return fail(s, "cannot re-read the JVM's dump");
        size_t j = i;
        for (; j < s->n_patches && s->patches[j].at >= start &&
               s->patches[j].at + s->patches[j].size <= start + (uint64_t)got;
             j++) {
            uint8_t *p = s->buf + (s->patches[j].at - start);
            if (s->patches[j].size == 4)
                put4(p, (uint32_t)s->patches[j].value);
            else
                put8(p, s->patches[j].value);
        }
        size_t n = (size_t)(s->patches[j - 1].at + s->patches[j - 1].size - start);
        if (pwrite(s->pub->fd, s->buf, n, (off_t)start) != (ssize_t)n)
            return fail(s, "cannot write the JVM's dump: %s", strerror(errno));
        i = j;
    }
    return true;
}

static size_t memory(const struct sp *s)
{
    return BUF_SIZE + s->n_blocks * BLOCK_BYTES + hd_map_bytes(&s->blocks) +
           hd_map_bytes(&s->utf8) + hd_map_bytes(&s->texts) + s->arena_cap +
           s->cap_fixes * sizeof *s->fixes + (s->refs ? MAX_REFS * sizeof *s->refs : 0) +
           s->cap_patches * sizeof *s->patches;
}

/* The next dump's numbers start above this one's. */
static void advance_ids(const struct sp *s)
{
    ids.class_base += s->max_class + 1;
    ids.thread_base += s->max_thread + 1;
    ids.trace_base += s->max_trace + 1;
    ids.frame_base += s->max_frame + 1;
}

/* The JVM's file as the output (see splice.h). */
static enum hd_splice_result in_place(struct sp *s)
{
    struct hd_splice *pub = s->pub;
    s->scan = s->defer = s->inplace = true;
    s->min_object = UINT64_MAX;
    s->names_floor = hp_bin_strings_issued() + NAMES_HEADROOM;
    bool ok = run_pass(s);
    while (atomic_load(&pub->jvm) == HD_JVM_WRITING)
        pause_briefly();
    if (ok && atomic_load(&pub->jvm) == HD_JVM_FAILED) ok = fail(s, "the JVM's dumper failed");
    /* Object IDs are addresses there, a sequence here: all of theirs must
     * lie above all of ours (see README). */
    if (ok && s->min_object <= hp_objid_issued())
        s->refused = true, pub->refusal = "an object ID as low as ours";
    if (s->refused) return HD_SPLICE_NOTHING;
    ok = ok && apply_patches(s) && apply_fixes(s) &&
         (hp_out_adopt(pub->fd, pub->path, HP_HEADER_SIZE, s->dump_end, &pub->moved) ||
          fail(s, "cannot add the JVM's dump to the output"));
    pub->memory = memory(s);
    if (!ok) return HD_SPLICE_NOTHING;
    advance_ids(s);
    ids.dummy_written = true;
    pub->adopted = true;
    pub->out_bytes = s->dump_end - HP_HEADER_SIZE;
    return HD_SPLICE_OK;
}

static enum hd_splice_result run_splice(struct sp *s)
{
    struct hd_splice *pub = s->pub;
    bool ok;
    if (pub->overlap) {
        s->emit = s->scan = s->defer = true;
        s->punching = pub->punch_lag > 0;
        ok = run_pass(s);
        /* The JVM's verdict counts even when its file looked complete. */
        while (ok && atomic_load(&pub->jvm) == HD_JVM_WRITING)
            pause_briefly();
        if (ok && atomic_load(&pub->jvm) == HD_JVM_FAILED) ok = fail(s, "the JVM's dumper failed");
        ok = ok && apply_fixes(s);
    } else {
        while (atomic_load(&pub->jvm) == HD_JVM_WRITING)
            pause_briefly();
        s->scan = true;
        ok = run_pass(s);
        s->scan = false;
        s->emit = true;
        ok = ok && run_pass(s);
    }
    pub->memory = memory(s);
    enum hd_splice_result res = HD_SPLICE_OK;
    if (s->locked) {
        if (ok) {
            pub->out_bytes = hp_out_offset() - s->seg_start;
        } else if (s->seg_start) {
            res = hp_out_truncate(s->seg_start) ? HD_SPLICE_NOTHING : HD_SPLICE_BROKEN;
        }
        advance_ids(s);
        hp_out_unlock();
    }
    return ok ? res : res == HD_SPLICE_OK ? HD_SPLICE_NOTHING : res;
}

/* One attempt, in place or as a copy. *refused: in place was not possible,
 * the JVM's file is unchanged. */
static enum hd_splice_result attempt(struct hd_splice *sp, bool inplace, bool *refused)
{
    struct sp s = {.pub = sp};
    sp->error[0] = '\0';
    sp->in_bytes = sp->out_bytes = sp->objects = sp->nulled = sp->punched = 0;
    sp->adopted = sp->moved = false;
    if (inplace) sp->refusal = NULL;
    hd_map_init(&s.blocks);
    hd_map_init(&s.utf8);
    hd_map_init(&s.texts);
    s.buf = malloc(BUF_SIZE);
    enum hd_splice_result res = HD_SPLICE_NOTHING;
    if (s.buf == NULL)
        fail(&s, "out of memory for the splice buffer");
    else
        res = inplace ? in_place(&s) : run_splice(&s);
    *refused = s.refused;
    for (size_t i = 0; s.blocks.keys && i <= s.blocks.mask; i++)
        if (s.blocks.keys[i]) free((void *)(uintptr_t)s.blocks.vals[i]);
    hd_map_free(&s.blocks);
    hd_map_free(&s.utf8);
    hd_map_free(&s.texts);
    free(s.arena);
    free(s.fixes);
    free(s.refs);
    free(s.patches);
    free(s.buf);
    return res;
}

enum hd_splice_result hd_splice_run(struct hd_splice *sp)
{
    bool refused = false;
    if (sp->inplace) {
        enum hd_splice_result res = attempt(sp, true, &refused);
        if (!refused) return res;
    }
    return attempt(sp, false, &refused);
}
