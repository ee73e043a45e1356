/* Where a binary profile cut at `size` bytes ends its last whole record:
 * the records are walked from the header by their lengths (a failed write
 * is rare; the walk reads 9 bytes a record). */
#include "agent/output/encoder.h"
#include "format/bytes.h"
#include "format/hprof_format.h"

#include <unistd.h>

uint64_t hp_binary_whole_prefix(int fd, uint64_t size)
{
    if (size < HP_HEADER_SIZE) return 0;
    uint64_t at = HP_HEADER_SIZE;
    unsigned char h[HP_RECORD_HEADER_SIZE];
    while (size - at >= sizeof h) {
        if (pread(fd, h, sizeof h, (off_t)at) != (ssize_t)sizeof h) break;
        uint64_t body = hp_be32(h + 5);
        if (body > size - at - sizeof h) break;
        at += sizeof h + body;
    }
    return at;
}
