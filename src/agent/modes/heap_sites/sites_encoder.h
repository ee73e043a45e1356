/* heap=sites output: the SITES table (ascii) or ALLOC SITES record (binary).
 * The mode builds the report (totals, sorted and cut-off rows); an encoder
 * only lays it out. Counts are 64-bit; the binary encoder saturates them
 * where the format has u4 fields. */
#ifndef HPROF_SITES_ENCODER_H
#define HPROF_SITES_ENCODER_H

#include "format/hprof_format.h"

#include <stddef.h>
#include <stdint.h>

struct hp_sites_row {
    uint32_t class_serial, trace_serial;
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs;
};

struct hp_sites_report {
    float cutoff;   /* the cutoff ratio applied to the rows */
    uint16_t flags; /* HP_SITES_* (ALLOC SITES flags); 0 at dumps */
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs; /* over all sites */
    size_t n_rows;
    const struct hp_sites_row *rows; /* by live (or allocated) bytes, descending */
};

struct hp_sites_encoder {
    void (*sites)(const struct hp_sites_report *r);
    /* HEAP SUMMARY (0x07) from the report's totals, on a net= request; NULL
     * for ascii, which has no such record (the original wrote nothing). */
    void (*heap_summary)(const struct hp_sites_report *totals);
};

extern const struct hp_sites_encoder hp_ascii_sites_encoder;
extern const struct hp_sites_encoder hp_binary_sites_encoder;

#endif
