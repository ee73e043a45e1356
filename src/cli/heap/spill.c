#include "cli/heap/spill.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hp_spill_init(hp_spill *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->at = hp_spill_header_bytes;
}

static int write_all(int fd, const void *p, size_t n, uint64_t at)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n > (1u << 30) ? (1u << 30) : n, (off_t)at);
        if (w <= 0) return -1;
        c += w;
        at += (uint64_t)w;
        n -= (size_t)w;
    }
    return 0;
}

int hp_spill_write_header(hp_spill *s, const void *header, size_t bytes)
{
    if (s->fd < 0 || bytes > hp_spill_header_bytes) return -1;
    if (write_all(s->fd, header, bytes, 0) != 0) s->failed = 1;
    return s->failed ? -1 : 0;
}

int hp_spill_save(hp_spill *s, int sec, const void *array, size_t bytes)
{
    if (s->fd < 0) return 0;
    if (s->failed || (bytes && write_all(s->fd, array, bytes, s->at) != 0)) {
        s->failed = 1;
        return -1;
    }
    s->sec[sec] = (hp_section){s->at, bytes};
    s->at += (bytes + 7) / 8 * 8;
    return 0;
}

int hp_spill_append(hp_spill *s, int sec, const void *array, size_t bytes)
{
    if (s->fd < 0) return 0;
    hp_section *c = &s->sec[sec];
    if (c->bytes == 0) c->at = s->at;
    if (s->failed || (bytes && write_all(s->fd, array, bytes, c->at + c->bytes) != 0)) {
        s->failed = 1;
        return -1;
    }
    c->bytes += bytes;
    s->at = c->at + (c->bytes + 7) / 8 * 8;
    return 0;
}

void hp_spill_drop(const hp_spill *s, void *array_ptr)
{
    if (s->fd < 0 || s->failed) return;
    void **p = array_ptr;
    free(*p);
    *p = NULL;
}

int hp_spill_put(hp_spill *s, int sec, void *array_ptr, size_t bytes)
{
    if (hp_spill_save(s, sec, *(void **)array_ptr, bytes) != 0) return -1;
    hp_spill_drop(s, array_ptr);
    return 0;
}

const void *hp_spill_read(const hp_spill *s, int sec, const void *in_memory, size_t from,
                          size_t len, void *buf)
{
    if (in_memory) return (const char *)in_memory + from;
    char *c = buf;
    uint64_t at = s->sec[sec].at + from;
    while (len > 0) {
        ssize_t r = pread(s->fd, c, len, (off_t)at);
        if (r <= 0) return NULL;
        c += r;
        at += (uint64_t)r;
        len -= (size_t)r;
    }
    return buf;
}
