/* Where an ascii profile cut at `size` bytes ends its last whole line. */
#include "agent/output/encoder.h"

#include <unistd.h>

uint64_t hp_ascii_whole_prefix(int fd, uint64_t size)
{
    char buf[4096];
    uint64_t end = size;
    while (end > 0) {
        size_t n = end < sizeof buf ? (size_t)end : sizeof buf;
        if (pread(fd, buf, n, (off_t)(end - n)) != (ssize_t)n) return 0;
        for (size_t i = n; i > 0; i--)
            if (buf[i - 1] == '\n') return end - n + i;
        end -= n;
    }
    return 0;
}
