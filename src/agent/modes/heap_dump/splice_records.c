/* The JVM's records rewritten as ours: UTF8 names interned in our string
 * table, LOAD CLASS, FRAME and TRACE with serials and IDs of their own
 * ranges (in place: changed in the JVM's file), and the sub-records of its
 * HEAP DUMP SEGMENTs with their serials and field names. */
#include "agent/modes/heap_dump/splice_state.h"
#include "agent/tables/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shape of a record both the copy and the in-place pass rely on. */
static bool well_formed(struct sp *s, uint8_t tag, const uint8_t *b, uint32_t len)
{
    switch (tag) {
    case HP_UTF8:
        return len >= HP_ID_SIZE || hd_sp_fail(s, "short UTF8 record in the JVM's dump");
    case HP_LOAD_CLASS:
        return len == hp_load_class_size(HP_ID_SIZE) ||
               hd_sp_fail(s, "bad LOAD CLASS record in the JVM's dump");
    case HP_FRAME:
        return len == hp_frame_size(HP_ID_SIZE) ||
               hd_sp_fail(s, "bad FRAME record in the JVM's dump");
    case HP_TRACE:
        return (len >= HP_TRACE_FIXED_SIZE && (len - HP_TRACE_FIXED_SIZE) % HP_ID_SIZE == 0 &&
                hp_be32(b + 8) == (len - HP_TRACE_FIXED_SIZE) / HP_ID_SIZE) ||
               hd_sp_fail(s, "bad TRACE record in the JVM's dump");
    default:
        return hd_sp_fail(s, "unexpected record (tag %#x) in the JVM's dump", tag);
    }
}

static bool utf8(struct sp *s, const uint8_t *b, uint32_t len)
{
    uint64_t id = hp_be64(b);
    size_t n = len - HP_ID_SIZE;
    if (s->arena_len + n + 1 > s->arena_cap) {
        size_t cap = (s->arena_cap + n + 1) * 2;
        char *grown = realloc(s->arena, cap);
        if (grown == NULL) return hd_sp_fail(s, "out of memory for the JVM's names");
        s->arena = grown;
        s->arena_cap = cap;
    }
    char *text = s->arena + s->arena_len;
    memcpy(text, b + HP_ID_SIZE, n);
    text[n] = '\0';
    uint64_t ours = hp_bin_string(text);
    if (ours == 0 || !hd_map_put(&s->utf8, id, ours) ||
        !hd_map_put(&s->texts, id, s->arena_len + 1))
        return hd_sp_fail(s, "out of memory for the JVM's names");
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
    uint64_t name = class_name(s, hp_be64(b + 16));
    if (name == 0) return hd_sp_fail(s, "a LOAD CLASS of the JVM's dump has no name");
    struct hp_rec r;
    hp_rec_begin(&r, HP_LOAD_CLASS);
    hp_rec_u4(&r, class_of(s, hp_be32(b)));
    hp_rec_id(&r, hp_be64(b + 4));
    hp_rec_u4(&r, trace_of(s, hp_be32(b + 12)));
    hp_rec_id(&r, name);
    hp_rec_end(&r);
    return true;
}

static bool frame(struct sp *s, const uint8_t *b)
{
    uint64_t method, sig, source;
    if (!utf8_of(s, hp_be64(b + 8), &method) || !utf8_of(s, hp_be64(b + 16), &sig) ||
        !utf8_of(s, hp_be64(b + 24), &source))
        return false;
    struct hp_rec r;
    hp_rec_begin(&r, HP_FRAME);
    hp_rec_id(&r, frame_of(s, hp_be64(b)));
    hp_rec_id(&r, method);
    hp_rec_id(&r, sig);
    hp_rec_id(&r, source);
    hp_rec_u4(&r, class_of(s, hp_be32(b + 32)));
    hp_rec_u4(&r, hp_be32(b + 36));
    hp_rec_end(&r);
    return true;
}

static bool trace(struct sp *s, const uint8_t *b)
{
    uint32_t serial = hp_be32(b), n = hp_be32(b + 8);
    if (serial == DUMMY_TRACE && (n != 0 || hd_sp_ids.dummy_written)) {
        if (n == 0) return true;
        return hd_sp_fail(s, "the JVM's dump has frames in trace 1");
    }
    struct hp_rec r;
    hp_rec_begin(&r, HP_TRACE);
    hp_rec_u4(&r, trace_of(s, serial));
    hp_rec_u4(&r, thread_of(s, hp_be32(b + 4)));
    hp_rec_u4(&r, n);
    for (uint32_t i = 0; i < n; i++)
        hp_rec_id(&r, frame_of(s, hp_be64(b + 12 + (size_t)i * HP_ID_SIZE)));
    hp_rec_end(&r);
    if (serial == DUMMY_TRACE) hd_sp_ids.dummy_written = true;
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
        if (hp_be64(b) <= s->names_floor) {
            s->refused = true;
            s->pub->refusal = "a name ID as low as ours";
        }
        return !s->refused;
    case HP_LOAD_CLASS:
        return hd_sp_set4(s, b, class_of(s, hp_be32(b))) &&
               hd_sp_set4(s, b + 12, trace_of(s, hp_be32(b + 12)));
    case HP_FRAME:
        return hd_sp_set8(s, b, frame_of(s, hp_be64(b))) &&
               hd_sp_set4(s, b + 32, class_of(s, hp_be32(b + 32)));
    default: { /* HP_TRACE */
        bool ok = hd_sp_set4(s, b, trace_of(s, hp_be32(b))) &&
                  hd_sp_set4(s, b + 4, thread_of(s, hp_be32(b + 4)));
        for (uint32_t i = 0, n = hp_be32(b + 8); ok && i < n; i++) {
            uint8_t *f = b + 12 + (size_t)i * HP_ID_SIZE;
            ok = hd_sp_set8(s, f, frame_of(s, hp_be64(f)));
        }
        return ok;
    }
    }
}

bool hd_sp_record(struct sp *s, uint8_t tag, uint8_t *body, uint32_t len)
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

/* The size of the CLASS DUMP at head, reading until all of it is there:
 * constant pool (index, type, value), statics (name, type, value), instance
 * fields (name, type). */
static bool class_dump(struct sp *s, uint64_t *size)
{
    const size_t fixed = 1 + hp_class_dump_fixed_size(HP_ID_SIZE); /* up to the pool */
    size_t want = fixed + 2;
    for (;;) {
        if (!hd_sp_fill(s, want)) return false;
        const uint8_t *p = s->buf + s->head;
        size_t avail = s->len - s->head, q = fixed;
        bool whole = true;
        for (int part = 0; part < 3 && whole; part++) {
            size_t entry = part == 0 ? 3 : HP_ID_SIZE + 1;
            whole = q + 2 <= avail;
            uint16_t n = whole ? hp_be16(p + q) : 0;
            q += 2;
            for (uint16_t i = 0; i < n && whole; i++) {
                whole = q + entry <= avail;
                unsigned v = whole ? value_size(p[q + entry - 1]) : 1;
                if (v == 0)
                    return hd_sp_fail(s, "bad field type in a CLASS DUMP of the JVM's dump");
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
    hp_put_be32(p + q, trace_of(s, hp_be32(p + q)));
    q = 1 + hp_class_dump_fixed_size(HP_ID_SIZE);
    uint16_t n = hp_be16(p + q);
    q += 2;
    for (uint16_t i = 0; i < n; i++)
        q += 3 + value_size(p[q + 2]);
    for (int part = 0; part < 2; part++) {
        n = hp_be16(p + q);
        q += 2;
        for (uint16_t i = 0; i < n; i++) {
            uint64_t ours;
            if (!utf8_of(s, hp_be64(p + q), &ours)) return false;
            hp_put_be64(p + q, ours);
            q += HP_ID_SIZE + 1 + (part == 0 ? value_size(p[q + HP_ID_SIZE]) : 0);
        }
    }
    return true;
}

static bool elements(struct sp *s, uint32_t n)
{
    uint64_t in = s->buf_off + s->head, out = out_offset(s, s->head);
    bool ahead = false;
    size_t kept = 0; /* refs kept from this array; SIZE_MAX: none, re-read it */
    for (uint32_t left = n; left > 0;) {
        if (!hd_sp_fill(s, HP_ID_SIZE)) return false;
        size_t k = (s->len - s->head) / HP_ID_SIZE;
        if (k > left) k = left;
        uint8_t *p = s->buf + s->head;
        if (s->emit || s->defer)
            for (size_t i = 0; i < k; i++, p += HP_ID_SIZE) {
                uint64_t e = hp_be64(p);
                if (e == 0 || dumped(s, e)) continue;
                if (s->defer) {
                    ahead = ahead || !hd_sp_keep_ref(s, p, e, &kept);
                } else {
                    memset(p, 0, HP_ID_SIZE);
                    s->pub->nulled++;
                }
            }
        s->head += k * HP_ID_SIZE;
        left -= (uint32_t)k;
    }
    return !ahead || hd_sp_add_fix(s, in, out, n);
}

/* GC roots whose object ID is followed by a thread serial. */
static bool root_with_thread(uint8_t tag)
{
    return tag == HP_ROOT_JNI_LOCAL || tag == HP_ROOT_JAVA_FRAME || tag == HP_ROOT_NATIVE_STACK ||
           tag == HP_ROOT_THREAD_BLOCK || tag == HP_ROOT_THREAD_OBJECT;
}

bool hd_sp_segment(struct sp *s, uint64_t left)
{
    const size_t id_at = 1, trace_at = 1 + hp_sub_trace_at(HP_ID_SIZE);
    while (left > 0) {
        if (!hd_sp_fill(s, 1)) return false;
        uint8_t t = s->buf[s->head];
        uint64_t size = hp_root_size(t, HP_ID_SIZE), body = 0;
        uint8_t *p;
        if (size) {
            size += 1;
            if (!hd_sp_fill(s, size)) return false;
            p = s->buf + s->head;
            const size_t thread_at = id_at + HP_ID_SIZE;
            if (root_with_thread(t) &&
                !hd_sp_set4(s, p + thread_at, thread_of(s, hp_be32(p + thread_at))))
                return false;
            if (t == HP_ROOT_THREAD_OBJECT &&
                !hd_sp_set4(s, p + thread_at + 4, trace_of(s, hp_be32(p + thread_at + 4))))
                return false;
        } else if (t == HP_CLASS_DUMP) {
            if (!class_dump(s, &size)) return false;
            p = s->buf + s->head;
            if (!mark(s, hp_be64(p + id_at)) || (s->emit && !class_names(s, p)) ||
                (s->inplace && !hd_sp_set4(s, p + trace_at, trace_of(s, hp_be32(p + trace_at)))))
                return false;
        } else if (t == HP_INSTANCE_DUMP || t == HP_OBJ_ARRAY_DUMP || t == HP_PRIM_ARRAY_DUMP) {
            size = 1 + (t == HP_INSTANCE_DUMP    ? hp_instance_dump_fixed_size(HP_ID_SIZE)
                        : t == HP_OBJ_ARRAY_DUMP ? hp_obj_array_dump_fixed_size(HP_ID_SIZE)
                                                 : hp_prim_array_dump_fixed_size(HP_ID_SIZE));
            if (!hd_sp_fill(s, size)) return false;
            p = s->buf + s->head;
            uint32_t n = hp_be32(p + 1 +
                                 (t == HP_INSTANCE_DUMP ? hp_instance_dump_count_at(HP_ID_SIZE)
                                                        : hp_array_dump_count_at(HP_ID_SIZE)));
            uint8_t elem = p[size - 1]; /* a primitive array's element type */
            unsigned esz = t == HP_INSTANCE_DUMP    ? 1
                           : t == HP_OBJ_ARRAY_DUMP ? HP_ID_SIZE
                                                    : value_size(elem);
            if (esz == 0 || (t == HP_PRIM_ARRAY_DUMP && elem == HP_T_OBJECT))
                return hd_sp_fail(s, "bad array type in the JVM's dump");
            body = (uint64_t)n * esz;
            if (!mark(s, hp_be64(p + id_at)) ||
                !hd_sp_set4(s, p + trace_at, trace_of(s, hp_be32(p + trace_at))))
                return false;
        } else {
            return hd_sp_fail(s, "unknown heap dump sub-record %#x in the JVM's dump", t);
        }
        if (size + body > left)
            return hd_sp_fail(s, "a sub-record crosses a segment of the JVM's dump");
        s->head += size;
        left -= size + body;
        if (t == HP_OBJ_ARRAY_DUMP ? !elements(s, (uint32_t)(body / HP_ID_SIZE))
                                   : !hd_sp_pass(s, body))
            return false;
    }
    return true;
}
