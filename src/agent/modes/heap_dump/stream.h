/* The heap dump byte stream. JVM TI heap callbacks run on the VM thread
 * while other Java threads are stopped, possibly holding the output lock, so
 * they must not write output. Instead they fill fixed-size chunks, and a
 * plain (non-Java) writer thread, which takes the output lock before the walk
 * starts and holds it to the end, writes each chunk out. Memory stays at a
 * few chunks whatever the heap size.
 *
 * With framing (binary), each chunk starts with a header the encoder fills
 * in (a HEAP DUMP SEGMENT record header) and records never straddle chunks:
 * every record is announced with its exact size (hd_record). A record bigger
 * than a chunk becomes a segment of its own, sent as consecutive pieces. */
#ifndef HPROF_HD_STREAM_H
#define HPROF_HD_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HD_CHUNK_SIZE (4u << 20)
#define HD_CHUNKS 4

struct hd_stream_io {
    size_t frame;                                      /* header bytes per chunk; 0: none */
    void (*frame_fill)(uint8_t *hdr, uint64_t body);   /* header of a `body`-byte frame */
    void (*write)(void *ctx, const void *p, size_t n); /* on the writer thread */
    void (*finish)(void *ctx); /* writer thread, after the last chunk, output lock held */
    void *ctx;
};

struct hd_stream {
    uint8_t *buf;
    size_t len, cap;
    bool direct; /* inside a record larger than a chunk: pieces go unframed */
    struct hd_stream_io io;
    uint64_t bytes; /* produced so far */
    /* Hand-off between producer and writer. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint8_t *spare[HD_CHUNKS];
    int n_spare;
    struct {
        uint8_t *p;
        size_t len;
    } full[HD_CHUNKS];
    int head, n_full;
    bool closed, ready;
    pthread_t writer;
};

/* Allocates the chunks and starts the writer; returns once the writer holds
 * the output lock. false (nothing started) on failure. */
bool hd_stream_start(struct hd_stream *s, const struct hd_stream_io *io);
/* Sends what is left, waits for the writer to finish and frees the stream. */
void hd_stream_end(struct hd_stream *s);

/* Announces a record of exactly `size` bytes (no effect without framing). */
void hd_record(struct hd_stream *s, uint64_t size);
void hd_put_slow(struct hd_stream *s, const void *p, size_t n);
/* Appends `count` elements of `esz` bytes each, converted to big-endian. */
void hd_put_be(struct hd_stream *s, const void *src, uint64_t count, unsigned esz);

static inline void hd_put(struct hd_stream *s, const void *p, size_t n)
{
    if (s->len + n <= s->cap) {
        memcpy(s->buf + s->len, p, n);
        s->len += n;
    } else {
        hd_put_slow(s, p, n);
    }
}
static inline void hd_u1(struct hd_stream *s, uint8_t v)
{
    hd_put(s, &v, 1);
}
static inline void hd_u2(struct hd_stream *s, uint16_t v)
{
    v = __builtin_bswap16(v);
    hd_put(s, &v, 2);
}
static inline void hd_u4(struct hd_stream *s, uint32_t v)
{
    v = __builtin_bswap32(v);
    hd_put(s, &v, 4);
}
static inline void hd_u8(struct hd_stream *s, uint64_t v)
{
    v = __builtin_bswap64(v);
    hd_put(s, &v, 8);
}

#endif
