/* Samples per trace since the last dump. */
#ifndef HPROF_CPU_COUNTS_H
#define HPROF_CPU_COUNTS_H

#include "agent/output/cpu_report_encoder.h"

#include <stddef.h>
#include <stdint.h>

/* Adds n samples to a trace (0: none, out of memory). */
void hp_cpu_counts_add(uint32_t trace_serial, uint32_t n);
/* The traces with samples, most first (ties by serial), and the total over
 * all of them. The caller frees *rows. These counts are what
 * hp_cpu_counts_forget_reported later takes away. */
struct hp_cpu_row *hp_cpu_counts_snapshot(size_t *n, uint64_t *total);
/* Subtracts the last snapshot: samples taken since it are kept for the
 * next report. */
void hp_cpu_counts_forget_reported(void);
/* Drops every count (net= CONTROL "clear CPU"). */
void hp_cpu_counts_clear(void);

#endif
