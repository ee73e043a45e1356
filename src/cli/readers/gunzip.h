/* Gzip-compressed dumps (jcmd GC.heap_dump -gz=N): inflated through zlib. */
#ifndef HPROF_CLI_GUNZIP_H
#define HPROF_CLI_GUNZIP_H

#include <stdint.h>

#include "cli/readers/reader.h"

static inline int hp_is_gzip(const uint8_t *p, uint64_t len)
{
    return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/*
 * Inflates every gzip member of data (HotSpot writes one per chunk) into an
 * unlinked temporary file under $TMPDIR (default /tmp), so the result can be
 * mapped like any dump and its pages stay reclaimable. Returns the file's
 * descriptor, or -1 with *err set (offsets are into the compressed file).
 */
int hp_gunzip_to_temp(const uint8_t *data, uint64_t len, hp_error *err);

#endif
