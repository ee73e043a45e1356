#include "writer.h"

#include "../core/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFFER_SIZE ((size_t)256 * 1024)

static struct {
    pthread_mutex_t lock;
    int fd;
    bool is_socket;
    bool failed;
    char what[256];
    size_t used;
    uint64_t offset;
    char buf[BUFFER_SIZE];
} out = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .fd = -1};

void hp_out_open(int fd, bool is_socket, const char *what)
{
    pthread_mutex_lock(&out.lock);
    out.fd = fd;
    out.is_socket = is_socket;
    out.failed = false;
    out.used = 0;
    out.offset = 0;
    snprintf(out.what, sizeof out.what, "%s", what);
    pthread_mutex_unlock(&out.lock);
}

static void raw_write(const char *p, size_t n)
{
    while (n > 0 && !out.failed && out.fd >= 0) {
        ssize_t w = out.is_socket ? send(out.fd, p, n, MSG_NOSIGNAL) : write(out.fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            hp_error("output lost: cannot write to %s: %s", out.what,
                     w < 0 ? strerror(errno) : "no progress");
            out.failed = true;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void flush_locked(void)
{
    raw_write(out.buf, out.used);
    out.used = 0;
}

void hp_out_write(const void *data, size_t len)
{
    pthread_mutex_lock(&out.lock);
    out.offset += len;
    if (out.used + len > BUFFER_SIZE) flush_locked();
    if (len >= BUFFER_SIZE) {
        raw_write(data, len);
    } else {
        memcpy(out.buf + out.used, data, len);
        out.used += len;
    }
    pthread_mutex_unlock(&out.lock);
}

void hp_out_printf(const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        hp_out_write(small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    hp_out_write(big, (size_t)n);
    free(big);
}

void hp_out_lock(void)
{
    pthread_mutex_lock(&out.lock);
}
void hp_out_unlock(void)
{
    pthread_mutex_unlock(&out.lock);
}

void hp_out_flush(void)
{
    pthread_mutex_lock(&out.lock);
    flush_locked();
    pthread_mutex_unlock(&out.lock);
}

void hp_out_close(void)
{
    pthread_mutex_lock(&out.lock);
    flush_locked();
    if (out.fd >= 0) {
        if (out.is_socket) shutdown(out.fd, SHUT_RDWR);
        close(out.fd);
    }
    out.fd = -1;
    pthread_mutex_unlock(&out.lock);
}

uint64_t hp_out_offset(void)
{
    pthread_mutex_lock(&out.lock);
    uint64_t off = out.offset;
    pthread_mutex_unlock(&out.lock);
    return off;
}

static bool seekable_locked(uint64_t offset)
{
    if (out.fd < 0 || out.is_socket || out.failed || offset > out.offset) return false;
    flush_locked();
    return !out.failed;
}

bool hp_out_patch(uint64_t offset, const void *p, size_t n)
{
    pthread_mutex_lock(&out.lock);
    bool ok = seekable_locked(offset) && n <= out.offset - offset &&
              pwrite(out.fd, p, n, (off_t)offset) == (ssize_t)n;
    pthread_mutex_unlock(&out.lock);
    return ok;
}

bool hp_out_truncate(uint64_t offset)
{
    pthread_mutex_lock(&out.lock);
    bool ok = seekable_locked(offset) && ftruncate(out.fd, (off_t)offset) == 0 &&
              lseek(out.fd, (off_t)offset, SEEK_SET) == (off_t)offset;
    if (ok) out.offset = offset;
    pthread_mutex_unlock(&out.lock);
    return ok;
}
