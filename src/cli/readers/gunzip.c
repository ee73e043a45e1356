#include "cli/readers/gunzip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int temp_file(hp_error *err)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL, 0600);
    if (fd >= 0) return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/hprof-gunzip-XXXXXX", dir);
    fd = mkstemp(path);
    if (fd < 0)
        return hp_fail(err, 0, "cannot create a temporary file in %s: %s", dir, strerror(errno));
    unlink(path);
    return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Inflates members back to back until the input is used up. */
static int inflate_all(z_stream *z, const uint8_t *data, uint64_t len, int fd, uint8_t *buf,
                       size_t cap, hp_error *err)
{
    uint64_t pos = 0;
    while (pos < len) {
        uint64_t member = pos;
        if (inflateReset2(z, 16 + MAX_WBITS) != Z_OK) return hp_fail(err, pos, "zlib reset failed");
        int rc = Z_OK;
        while (rc != Z_STREAM_END) {
            if (z->avail_in == 0) {
                uint64_t left = len - pos;
                z->next_in = (Bytef *)(data + pos);
                z->avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
                pos += z->avail_in;
            }
            if (z->avail_in == 0) return hp_fail(err, member, "gzip member truncated");
            z->next_out = buf;
            z->avail_out = (uInt)cap;
            rc = inflate(z, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                return hp_fail(err, member, "corrupt gzip data (%s)",
                               z->msg ? z->msg : "zlib error");
            if (write_all(fd, buf, cap - z->avail_out) != 0)
                return hp_fail(err, member, "cannot write the inflated dump: %s", strerror(errno));
            if (rc == Z_BUF_ERROR && z->avail_in == 0 && pos == len)
                return hp_fail(err, member, "gzip member truncated");
        }
        pos -= z->avail_in; /* unread input belongs to the next member */
        z->avail_in = 0;
    }
    return 0;
}

int hp_gunzip_to_temp(const uint8_t *data, uint64_t len, hp_error *err)
{
    int fd = temp_file(err);
    if (fd < 0) return -1;
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    int rc = -1;
    if (!buf)
        hp_fail(err, 0, "out of memory");
    else if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        hp_fail(err, 0, "zlib initialisation failed");
    else
        rc = inflate_all(&z, data, len, fd, buf, cap, err);
    inflateEnd(&z);
    free(buf);
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}
