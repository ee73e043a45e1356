#include "agent/io/writer.h"

#include "agent/core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_SIZE ((size_t)256 * 1024)

static struct {
    pthread_mutex_t lock;
    int fd;
    bool is_socket;
    bool is_file; /* a regular file: writes never wait on a reader */
    bool failed;
    uint64_t (*whole_prefix)(int fd, uint64_t size);
    char what[256];
    size_t used;
    uint64_t offset;
    char buf[BUFFER_SIZE];
} out = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .fd = -1};

void hp_out_open(int fd, bool is_socket, const char *what,
                 uint64_t (*whole_prefix)(int fd, uint64_t size))
{
    struct stat st;
    pthread_mutex_lock(&out.lock);
    out.fd = fd;
    out.is_socket = is_socket;
    out.is_file = !is_socket && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    /* Our own open file description: the JVM's descriptors keep their mode
     * even when the output is /dev/stdout. Sockets use MSG_DONTWAIT instead,
     * leaving the net= listener's reads blocking. */
    if (!is_socket && !out.is_file) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0) (void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    }
    out.whole_prefix = whole_prefix;
    out.failed = false;
    out.used = 0;
    out.offset = 0;
    snprintf(out.what, sizeof out.what, "%s", what);
    pthread_mutex_unlock(&out.lock);
}

/* After a failed write: the file ends at its last whole record again. */
static void cut_to_whole_record(void)
{
    struct stat st;
    if (!out.is_file || out.whole_prefix == NULL || fstat(out.fd, &st) != 0) return;
    uint64_t keep = out.whole_prefix(out.fd, (uint64_t)st.st_size);
    if (keep < (uint64_t)st.st_size && ftruncate(out.fd, (off_t)keep) == 0)
        hp_error("output lost: %s ends at its last whole record (%" PRIu64 " bytes)", out.what,
                 keep);
}

static void give_up(const char *why)
{
    hp_error("output lost: cannot write to %s: %s", out.what, why);
    out.failed = true;
    cut_to_whole_record();
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd takes more bytes; false once HP_OUT_STALL_MS passed since
 * *since (0: now) without any (nobody reads the pipe or the peer's window
 * stays shut). */
static bool wait_writable(int64_t *since)
{
    if (*since == 0) *since = now_ms();
    struct pollfd p = {.fd = out.fd, .events = POLLOUT};
    for (int64_t left; (left = *since + HP_OUT_STALL_MS - now_ms()) > 0;) {
        int r = poll(&p, 1, (int)left);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return false;
    }
    return false;
}

static void raw_write(const char *p, size_t n)
{
    int64_t stalled_since = 0;
    while (n > 0 && !out.failed && out.fd >= 0) {
        ssize_t w =
            out.is_socket ? send(out.fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : write(out.fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_writable(&stalled_since)) continue;
            char why[64];
            snprintf(why, sizeof why, "nothing was read for %d s", HP_OUT_STALL_MS / 1000);
            give_up(why);
            return;
        }
        if (w <= 0) {
            give_up(w < 0 ? strerror(errno) : "no progress");
            return;
        }
        stalled_since = 0;
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

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* n bytes of `in` from in_off, written at out's file position (a file or a
 * pipe): in the kernel where it can. */
static bool copy_out(int in, uint64_t in_off, int out, uint64_t n)
{
    while (n > 0) {
        off64_t i = (off64_t)in_off;
        size_t k = n > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)n;
        ssize_t w = copy_file_range(in, &i, out, NULL, k, 0);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            char buf[1 << 16];
            w = pread(in, buf, k < sizeof buf ? k : sizeof buf, (off_t)in_off);
            if (w > 0 && !write_all(out, buf, (size_t)w)) w = -1;
        }
        if (w <= 0) return false;
        in_off += (uint64_t)w;
        n -= (uint64_t)w;
    }
    return true;
}

/* Renames `from` over `to`. Exchanging the two names and then removing
 * the old file spares the new one ext4's flush on replacing rename
 * (auto_da_alloc), which would start writing back a whole heap dump at
 * once (0.4 s per GB here); a plain rename where exchange is not supported. */
static bool move_onto(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0) {
        (void)unlink(from);
        return true;
    }
    return rename(from, to) == 0;
}

/* The output file, moved onto `fd`'s file; false leaves the output as it was
 * (the other file may have lost its header). Only where the output's name is
 * the plain file itself (not a link to it). */
static bool take_file(int fd, const char *path, uint64_t header, uint64_t len)
{
    struct stat ours, named, theirs;
    if (fstat(out.fd, &ours) != 0 || lstat(out.what, &named) != 0 || fstat(fd, &theirs) != 0 ||
        !S_ISREG(ours.st_mode) || ours.st_nlink != 1 || ours.st_dev != named.st_dev ||
        ours.st_ino != named.st_ino || theirs.st_dev != ours.st_dev || out.offset < header ||
        out.offset - header > len)
        return false;
    char head[64];
    int taken = -1;
    bool ok = header <= sizeof head && lseek(fd, (off_t)len, SEEK_SET) == (off_t)len &&
              copy_out(out.fd, header, fd, out.offset - header) &&
              pread(out.fd, head, (size_t)header, 0) == (ssize_t)header &&
              pwrite(fd, head, (size_t)header, 0) == (ssize_t)header &&
              fchmod(fd, ours.st_mode & 07777) == 0 && (taken = dup(fd)) >= 0;
    uint64_t end = len + out.offset - header;
    ok = ok && lseek(taken, (off_t)end, SEEK_SET) == (off_t)end && move_onto(path, out.what);
    if (!ok) {
        if (taken >= 0) close(taken);
        (void)ftruncate(fd, (off_t)len);
        return false;
    }
    close(out.fd);
    out.fd = taken;
    out.offset = end;
    return true;
}

bool hp_out_adopt(int fd, const char *path, uint64_t header, uint64_t len, bool *moved)
{
    pthread_mutex_lock(&out.lock);
    bool ok = seekable_locked(out.offset) && len >= header;
    *moved = ok && take_file(fd, path, header, len);
    if (ok && !*moved) {
        uint64_t at = out.offset;
        ok = copy_out(fd, header, out.fd, len - header);
        if (ok) {
            out.offset = at + len - header;
        } else if (ftruncate(out.fd, (off_t)at) != 0 || lseek(out.fd, (off_t)at, SEEK_SET) < 0) {
            give_up(strerror(errno));
        }
    }
    pthread_mutex_unlock(&out.lock);
    return ok;
}
