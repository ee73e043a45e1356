/* The SITES section of one dump or net= request: totals, rows sorted and
 * cut off, their traces, then the table through the sites encoder. */
#ifndef HPROF_HEAP_SITES_REPORT_H
#define HPROF_HEAP_SITES_REPORT_H

#include "agent/modes/heap_sites/engine.h"
#include "agent/modes/heap_sites/sites_encoder.h"

/* What to list: cutoff ratio and HP_SITES_* flags (a dump: cutoff=, 0). */
struct hp_sites_query {
    double cutoff;
    uint16_t flags;
};

/* Writes the traces of the listed sites and the table. */
void hp_sites_report_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live,
                           const struct hp_sites_query *q);
/* HEAP SUMMARY: the totals the table would show (encoders that have it). */
void hp_sites_summary_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live);

#endif
