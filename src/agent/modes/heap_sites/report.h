/* The SITES section of one dump: totals, rows sorted by live bytes and cut
 * off, their traces, then the table through the sites encoder. */
#ifndef HPROF_HEAP_SITES_REPORT_H
#define HPROF_HEAP_SITES_REPORT_H

#include "../../output/sites_encoder.h"
#include "live.h"

/* Writes the traces of the listed sites and the table. */
void hp_sites_report_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live);

#endif
