#include "agent/modes/heap_dump/stream.h"

#include "agent/core/error.h"
#include "agent/io/writer.h"

#include <stdlib.h>

static void *writer_main(void *arg)
{
    struct hd_stream *s = arg;
    hp_out_lock();
    pthread_mutex_lock(&s->lock);
    s->ready = true;
    pthread_cond_broadcast(&s->cond);
    for (;;) {
        while (s->n_full == 0 && !s->closed)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->n_full == 0) break;
        uint8_t *p = s->full[s->head].p;
        size_t len = s->full[s->head].len;
        pthread_mutex_unlock(&s->lock);
        s->io.write(s->io.ctx, p, len);
        pthread_mutex_lock(&s->lock);
        s->head = (s->head + 1) % HD_CHUNKS;
        s->n_full--;
        s->spare[s->n_spare++] = p;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    s->io.finish(s->io.ctx);
    hp_out_unlock();
    return NULL;
}

/* Hands the current chunk (len bytes) to the writer, takes a free one and
 * reserves `reserve` bytes at its start. */
static void pass_on(struct hd_stream *s, size_t reserve)
{
    pthread_mutex_lock(&s->lock);
    if (s->len > 0) {
        s->full[(s->head + s->n_full) % HD_CHUNKS].p = s->buf;
        s->full[(s->head + s->n_full) % HD_CHUNKS].len = s->len;
        s->n_full++;
        pthread_cond_broadcast(&s->cond);
        while (s->n_spare == 0)
            pthread_cond_wait(&s->cond, &s->lock);
        s->buf = s->spare[--s->n_spare];
    }
    pthread_mutex_unlock(&s->lock);
    s->bytes += s->len;
    s->len = reserve;
}

/* Ends the current chunk: a framed chunk gets its header; an empty one is
 * kept for reuse. */
static void seal(struct hd_stream *s)
{
    if (s->direct) {
        s->direct = false;
        pass_on(s, s->io.frame);
        return;
    }
    if (s->len <= s->io.frame) {
        s->len = s->io.frame;
        return;
    }
    if (s->io.frame) s->io.frame_fill(s->buf, s->len - s->io.frame);
    pass_on(s, s->io.frame);
}

bool hd_stream_start(struct hd_stream *s, const struct hd_stream_io *io)
{
    *s = (struct hd_stream){.io = *io, .cap = HD_CHUNK_SIZE};
    for (int i = 0; i < HD_CHUNKS; i++) {
        uint8_t *p = malloc(HD_CHUNK_SIZE);
        if (p == NULL) {
            while (s->n_spare > 0)
                free(s->spare[--s->n_spare]);
            hp_error("no memory for the heap dump buffers");
            return false;
        }
        s->spare[s->n_spare++] = p;
    }
    s->buf = s->spare[--s->n_spare];
    s->len = io->frame;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (pthread_create(&s->writer, NULL, writer_main, s) != 0) {
        hp_error("cannot start the heap dump writer thread");
        free(s->buf);
        while (s->n_spare > 0)
            free(s->spare[--s->n_spare]);
        return false;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->ready)
        pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return true;
}

void hd_stream_end(struct hd_stream *s)
{
    seal(s);
    pthread_mutex_lock(&s->lock);
    s->closed = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->writer, NULL);
    free(s->buf);
    while (s->n_spare > 0)
        free(s->spare[--s->n_spare]);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
}

void hd_record(struct hd_stream *s, uint64_t size)
{
    if (s->io.frame == 0) return;
    if (s->direct) seal(s);
    if (s->len + size <= s->cap) return;
    seal(s);
    if (s->io.frame + size <= s->cap) return;
    /* Too big for a chunk: a segment of its own, header first. */
    s->io.frame_fill(s->buf, size);
    s->direct = true;
}

/* The chunk is full. Unframed or oversized-record chunks go as they are;
 * a framed chunk can only fill here if a record size was announced wrongly,
 * and is then sealed as a segment anyway. */
static void full(struct hd_stream *s)
{
    if (s->io.frame == 0 || s->direct)
        pass_on(s, 0);
    else
        seal(s);
}

void hd_put_slow(struct hd_stream *s, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        if (s->len == s->cap) full(s);
        size_t k = s->cap - s->len < n ? s->cap - s->len : n;
        memcpy(s->buf + s->len, b, k);
        s->len += k;
        b += k;
        n -= k;
    }
}

void hd_put_be(struct hd_stream *s, const void *src, uint64_t count, unsigned esz)
{
    const uint8_t *in = src;
    while (count > 0) {
        if (s->cap - s->len < esz) full(s);
        uint64_t k = (s->cap - s->len) / esz;
        if (k > count) k = count;
        uint8_t *out = s->buf + s->len;
        switch (esz) {
        case 1:
            memcpy(out, in, k);
            break;
        case 2:
            for (uint64_t i = 0; i < k; i++) {
                uint16_t v;
                memcpy(&v, in + i * 2, 2);
                v = __builtin_bswap16(v);
                memcpy(out + i * 2, &v, 2);
            }
            break;
        case 4:
            for (uint64_t i = 0; i < k; i++) {
                uint32_t v;
                memcpy(&v, in + i * 4, 4);
                v = __builtin_bswap32(v);
                memcpy(out + i * 4, &v, 4);
            }
            break;
        default:
            for (uint64_t i = 0; i < k; i++) {
                uint64_t v;
                memcpy(&v, in + i * 8, 8);
                v = __builtin_bswap64(v);
                memcpy(out + i * 8, &v, 8);
            }
            break;
        }
        s->len += (size_t)(k * esz);
        in += k * esz;
        count -= k;
    }
}
