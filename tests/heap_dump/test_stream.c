/* Unit tests of heap=dump's stream (chunking, segment framing, records
 * never straddling segments, oversized records) and its object-ID map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/modes/heap_dump/map.h"
#include "agent/modes/heap_dump/stream.h"

static uint8_t *out;
static size_t out_len, out_cap;
static int finished;

static void sink(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    if (out_len + n > out_cap) {
        out_cap = (out_len + n) * 2;
        out = realloc(out, out_cap);
        assert_non_null(out);
    }
    memcpy(out + out_len, p, n);
    out_len += n;
}

static void finish(void *ctx)
{
    (void)ctx;
    finished++;
}

static void frame(uint8_t *h, uint64_t body)
{
    h[0] = 0x1C;
    memset(h + 1, 0, 4);
    for (int i = 0; i < 4; i++)
        h[5 + i] = (uint8_t)(body >> (24 - 8 * i));
}

static void reset(void)
{
    free(out);
    out = NULL;
    out_len = out_cap = 0;
    finished = 0;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A record: u4 size (whole record), u4 sequence number, filler bytes equal
 * to the low byte of the sequence number. */
static void put_record(struct hd_stream *s, uint32_t seq, uint32_t size)
{
    hd_record(s, size);
    hd_u4(s, size);
    hd_u4(s, seq);
    uint8_t fill[997];
    memset(fill, (int)(seq & 0xff), sizeof fill);
    for (uint32_t left = size - 8; left > 0;) {
        uint32_t k = left < sizeof fill ? left : (uint32_t)sizeof fill;
        hd_put(s, fill, k);
        left -= k;
    }
}

static void framed_records_stay_whole(void **state)
{
    (void)state;
    reset();
    struct hd_stream_io io = {9, frame, sink, finish, NULL};
    struct hd_stream s;
    assert_true(hd_stream_start(&s, &io));
    uint32_t n = 0, huge_seq = 0;
    uint64_t total = 0;
    /* About 3 chunks' worth of small records, one record larger than a
     * chunk, then more small ones. */
    for (; total < 3ull * HD_CHUNK_SIZE; n++) {
        uint32_t size = 8 + (n * 7919u) % 3000;
        put_record(&s, n, size);
        total += size;
    }
    huge_seq = n++;
    put_record(&s, huge_seq, HD_CHUNK_SIZE * 2 + 12345);
    for (uint32_t k = 0; k < 1000; k++, n++)
        put_record(&s, n, 8 + k % 50);
    hd_stream_end(&s);
    assert_int_equal(finished, 1);

    uint32_t seq = 0, frames = 0;
    size_t pos = 0;
    while (pos < out_len) {
        assert_true(pos + 9 <= out_len);
        assert_int_equal(out[pos], 0x1C);
        uint32_t body = be32(out + pos + 5);
        assert_true(pos + 9 + body <= out_len);
        frames++;
        size_t r = pos + 9, end = pos + 9 + body;
        while (r < end) {
            uint32_t size = be32(out + r);
            assert_true(size >= 8 && r + size <= end); /* whole inside its frame */
            assert_int_equal(be32(out + r + 4), seq);
            if (seq == huge_seq) assert_int_equal(body, size); /* a frame of its own */
            for (uint32_t b = 8; b < size; b += 499)
                assert_int_equal(out[r + b], seq & 0xff);
            r += size;
            seq++;
        }
        assert_true(body <= HD_CHUNK_SIZE - 9 || body == HD_CHUNK_SIZE * 2 + 12345);
        pos = end;
    }
    assert_int_equal(seq, n);
    assert_true(frames >= 4);
    reset();
}

static void unframed_bytes_pass_through(void **state)
{
    (void)state;
    reset();
    struct hd_stream_io io = {0, NULL, sink, finish, NULL};
    struct hd_stream s;
    assert_true(hd_stream_start(&s, &io));
    uint64_t expect = 0;
    for (uint32_t i = 0; i < 3 * HD_CHUNK_SIZE / 4; i++) {
        hd_u4(&s, i);
        expect += 4;
    }
    hd_stream_end(&s);
    assert_int_equal(out_len, expect);
    for (uint32_t i = 0; i < 3 * HD_CHUNK_SIZE / 4; i += 4093)
        assert_int_equal(be32(out + 4 * i), i);
    reset();
}

static void big_endian_elements(void **state)
{
    (void)state;
    reset();
    struct hd_stream_io io = {0, NULL, sink, finish, NULL};
    struct hd_stream s;
    assert_true(hd_stream_start(&s, &io));
    uint16_t c[2] = {0x0102, 0xA0B0};
    uint32_t i4[1] = {0x01020304};
    uint64_t j8[1] = {0x0102030405060708ull};
    hd_put_be(&s, c, 2, 2);
    hd_put_be(&s, i4, 1, 4);
    hd_put_be(&s, j8, 1, 8);
    hd_put_be(&s, "xy", 2, 1);
    hd_stream_end(&s);
    const uint8_t want[] = {1, 2, 0xA0, 0xB0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 'x', 'y'};
    assert_int_equal(out_len, sizeof want);
    assert_memory_equal(out, want, sizeof want);
    reset();
}

static void map_finds_what_was_put(void **state)
{
    (void)state;
    struct hd_map m;
    hd_map_init(&m);
    uint64_t v;
    assert_false(hd_map_get(&m, 5, &v));
    assert_false(hd_map_put(&m, 0, 1)); /* 0 is not an ID */
    for (uint64_t k = 1; k <= 100000; k++)
        assert_true(hd_map_put(&m, k << 20 | k, k * 3));
    assert_true(hd_map_put(&m, 7ull << 20 | 7, 1));
    assert_int_equal(m.count, 100000);
    for (uint64_t k = 1; k <= 100000; k++) {
        assert_true(hd_map_get(&m, k << 20 | k, &v));
        assert_int_equal(v, k == 7 ? 1 : k * 3);
    }
    assert_false(hd_map_get(&m, 100001ull << 20, &v));
    hd_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(framed_records_stay_whole),
        cmocka_unit_test(unframed_bytes_pass_through),
        cmocka_unit_test(big_endian_elements),
        cmocka_unit_test(map_finds_what_was_put),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
