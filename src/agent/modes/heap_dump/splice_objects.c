/* The objects of the JVM's dump: the bitmap of those it dumped, and the
 * elements of object arrays that cite others. Those are nulled at the end
 * (CDS-archived mirrors of classes not loaded); with a file output, kept
 * while the copy runs so that the JVM's file can be punched out behind it. */
#include "agent/io/writer.h"
#include "agent/modes/heap_dump/splice_state.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

uint8_t *hd_sp_block_slow(struct sp *s, uint64_t key, bool create)
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

bool hd_sp_add_fix(struct sp *s, uint64_t in, uint64_t out, uint32_t n)
{
    if (s->n_fixes == s->cap_fixes) {
        size_t cap = s->cap_fixes ? s->cap_fixes * 2 : 1024;
        struct fix *grown = realloc(s->fixes, cap * sizeof *grown);
        if (grown == NULL) return hd_sp_fail(s, "out of memory for the array fix-up list");
        s->fixes = grown;
        s->cap_fixes = cap;
    }
    s->fixes[s->n_fixes++] = (struct fix){in, out, n};
    return true;
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

/* In place, an element citing an object not dumped yet is kept (objects come
 * in address order, so most are dumped soon after and dropped when room is
 * needed); without room, its array is re-read at the end. */
bool hd_sp_keep_ref(struct sp *s, const uint8_t *p, uint64_t target, size_t *kept)
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
            uint64_t e = hp_be64(ids_buf + (size_t)j * HP_ID_SIZE);
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
void hd_sp_punch(struct sp *s)
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
    return ok || hd_sp_fail(s, "cannot null a reference in the dump");
}

/* Nulls the elements of arrays that cited objects the dump never held. The
 * arrays are re-read in file order through the (now free) buffer. */
bool hd_sp_apply_fixes(struct sp *s)
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
                if (r < HP_ID_SIZE) return hd_sp_fail(s, "cannot re-read the JVM's dump");
                start = at;
                end = at + (uint64_t)r;
            }
            uint64_t e = hp_be64(s->buf + (at - start));
            if (e != 0 && !dumped(s, e) && !null_ref(s, at, x->out + i * HP_ID_SIZE)) return false;
        }
    }
    return true;
}
