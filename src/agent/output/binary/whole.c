/* Where a binary profile cut at `size` bytes ends its last whole record:
 * the records are walked from the header by their lengths (a failed write
 * is rare; the walk reads 9 bytes a record). */
#include "agent/output/encoder.h"

#include <unistd.h>

/* "JAVA PROFILE 1.0.x" and its NUL, u4 ID size, u8 start time. */
#define HEADER_LEN (19 + 4 + 8)

uint64_t hp_binary_whole_prefix(int fd, uint64_t size)
{
    if (size < HEADER_LEN) return 0;
    uint64_t at = HEADER_LEN;
    unsigned char h[9];
    while (size - at >= sizeof h) {
        if (pread(fd, h, sizeof h, (off_t)at) != (ssize_t)sizeof h) break;
        uint64_t body = (uint64_t)h[5] << 24 | (uint64_t)h[6] << 16 | (uint64_t)h[7] << 8 | h[8];
        if (body > size - at - sizeof h) break;
        at += sizeof h + body;
    }
    return at;
}
