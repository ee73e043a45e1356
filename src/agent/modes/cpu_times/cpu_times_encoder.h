/* Encoder interface of cpu=old's report (the old -prof format). cpu=times' CPU
 * TIME (ms) table goes through cpu_report_encoder.h. Both exist in ascii
 * only: the options refuse cpu=times|old with format=b. */
#ifndef HPROF_CPU_TIMES_ENCODER_H
#define HPROF_CPU_TIMES_ENCODER_H

#include <stddef.h>
#include <stdint.h>

struct hp_cpu_old_row {
    uint32_t count;    /* completed calls */
    uint32_t trace;    /* callee (frame 0) and caller (frame 1) */
    uint64_t total_ms; /* inclusive time */
};

struct hp_cpu_times_encoder {
    /* "count callee caller time" and the rows, already sorted. */
    void (*old_report)(const struct hp_cpu_old_row *rows, size_t n);
};

extern const struct hp_cpu_times_encoder hp_ascii_cpu_times;

#endif
