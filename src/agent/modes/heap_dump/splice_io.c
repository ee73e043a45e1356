/* Reading the JVM's file into the splice buffer as it grows, and changing
 * its bytes: in the buffer when copying, as patches of the file when taking
 * it in place (written at the end). */
#include "agent/io/writer.h"
#include "agent/modes/heap_dump/splice_state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool hd_sp_fail(struct sp *s, const char *fmt, ...)
{
    if (s->pub->error[0]) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->pub->error, sizeof s->pub->error, fmt, ap);
    va_end(ap);
    return false;
}

/* Sets the u4 (or u8) at p, in buf: in the buffer when copying, as a patch
 * of the JVM's file when taking it in place, not at all when only scanning. */
static bool set_n(struct sp *s, uint8_t *p, uint64_t v, unsigned size)
{
    if (s->emit) {
        if (size == 4)
            hp_put_be32(p, (uint32_t)v);
        else
            hp_put_be64(p, v);
        return true;
    }
    if (!s->inplace || (size == 4 ? hp_be32(p) : hp_be64(p)) == v) return true;
    if (s->n_patches == s->cap_patches) {
        size_t cap = s->cap_patches ? s->cap_patches * 2 : 4096;
        struct patch *grown = realloc(s->patches, cap * sizeof *grown);
        if (grown == NULL) return hd_sp_fail(s, "out of memory for the dump's serials");
        s->patches = grown;
        s->cap_patches = cap;
    }
    s->patches[s->n_patches++] = (struct patch){s->buf_off + (uint64_t)(p - s->buf), v, size};
    return true;
}

bool hd_sp_set4(struct sp *s, uint8_t *p, uint32_t v)
{
    return set_n(s, p, v, 4);
}

bool hd_sp_set8(struct sp *s, uint8_t *p, uint64_t v)
{
    return set_n(s, p, v, 8);
}

void hd_sp_flush_parsed(struct sp *s)
{
    if (s->emit && s->head > s->emitted) hp_out_write(s->buf + s->emitted, s->head - s->emitted);
    s->emitted = s->head;
    if (s->emit) s->out_at_emitted = hp_out_offset();
    if (s->punching) hd_sp_punch(s);
}

void hd_sp_pause(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* Makes n bytes available at buf + head, waiting while the JVM writes. */
bool hd_sp_fill(struct sp *s, size_t n)
{
    if (n > BUF_SIZE)
        return hd_sp_fail(s, "a record of the JVM's dump is too large (%zu bytes)", n);
    while (s->len - s->head < n) {
        if (BUF_SIZE - s->head < n) {
            hd_sp_flush_parsed(s);
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
        if (r < 0) return hd_sp_fail(s, "cannot read the JVM's dump: %s", strerror(errno));
        if (state == HD_JVM_FAILED) return hd_sp_fail(s, "the JVM's dumper failed");
        if (state == HD_JVM_DONE)
            return hd_sp_fail(s, "the JVM's dump ends in the middle of a record");
        hd_sp_pause();
    }
    return true;
}

/* Moves past n bytes that go out unchanged. */
bool hd_sp_pass(struct sp *s, uint64_t n)
{
    while (n > 0) {
        if (s->head == s->len && !hd_sp_fill(s, 1)) return false;
        size_t k = s->len - s->head;
        if (k > n) k = (size_t)n;
        s->head += k;
        n -= k;
    }
    return true;
}

/* Writes the patches into the JVM's file, a block at a time (they come in
 * file order, mostly close together), through the (now free) buffer. */
bool hd_sp_apply_patches(struct sp *s)
{
    const size_t block = (size_t)64 << 10;
    for (size_t i = 0; i < s->n_patches;) {
        uint64_t start = s->patches[i].at;
        ssize_t got = pread(s->pub->fd, s->buf, block, (off_t)start);
        if (got < 8) return hd_sp_fail(s, "cannot re-read the JVM's dump");
        size_t j = i;
        for (; j < s->n_patches && s->patches[j].at >= start &&
               s->patches[j].at + s->patches[j].size <= start + (uint64_t)got;
             j++) {
            uint8_t *p = s->buf + (s->patches[j].at - start);
            if (s->patches[j].size == 4)
                hp_put_be32(p, (uint32_t)s->patches[j].value);
            else
                hp_put_be64(p, s->patches[j].value);
        }
        size_t n = (size_t)(s->patches[j - 1].at + s->patches[j - 1].size - start);
        if (pwrite(s->pub->fd, s->buf, n, (off_t)start) != (ssize_t)n)
            return hd_sp_fail(s, "cannot write the JVM's dump: %s", strerror(errno));
        i = j;
    }
    return true;
}
