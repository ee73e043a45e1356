/* Gzipped dumps: several members inflated back to back; broken ones rejected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/readers/reader.h"
#include "hpbuild.h"

/* Writes data as gzip members of `chunk` bytes each, the way HotSpot does. */
static size_t write_gz(const char *path, const uint8_t *data, size_t len, size_t chunk)
{
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    size_t total = 0;
    for (size_t at = 0; at < len; at += chunk) {
        size_t n = len - at < chunk ? len - at : chunk;
        uint8_t buf[4096];
        z_stream z;
        memset(&z, 0, sizeof z);
        assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                         Z_OK);
        z.next_in = (Bytef *)(data + at);
        z.avail_in = (uInt)n;
        int rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            rc = deflate(&z, Z_FINISH);
            fwrite(buf, 1, sizeof buf - z.avail_out, out);
            total += sizeof buf - z.avail_out;
        } while (rc != Z_STREAM_END);
        deflateEnd(&z);
    }
    fclose(out);
    return total;
}

static void members(void **state)
{
    (void)state;
    hb_buf b;
    hb_init(&b, "1.0.2", 8);
    for (int i = 0; i < 200; i++)
        hb_utf8(&b, 100 + (uint64_t)i, "a string record, repeated to span several members");
    char path[] = "/tmp/hprof-gz-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    size_t gz_len = write_gz(path, b.data, b.len, 1000);

    hp_file f;
    hp_error e;
    assert_int_equal(hp_open(&f, path, &e), 0);
    assert_int_equal(f.size, b.len);
    assert_memory_equal(f.base, b.data, b.len);
    hp_close(&f);

    assert_int_equal(truncate(path, (off_t)gz_len - 5), 0);
    assert_int_equal(hp_open(&f, path, &e), -1);
    assert_non_null(f.base); /* bad content, not an I/O error */
    assert_string_equal(e.what, "gzip member truncated");
    hp_close(&f);
    unlink(path);
    hb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(members)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
