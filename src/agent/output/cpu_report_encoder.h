/* Encoder interface of the CPU report: the CPU SAMPLES table of cpu=samples,
 * and the CPU TIME (ms) table cpu=times can write with the same rows. The
 * caller has sorted the rows, applied the cutoff and written their traces. */
#ifndef HPROF_CPU_REPORT_ENCODER_H
#define HPROF_CPU_REPORT_ENCODER_H

#include <stddef.h>
#include <stdint.h>

enum hp_cpu_report_kind { HP_CPU_REPORT_SAMPLES, HP_CPU_REPORT_TIME };

struct hp_cpu_row {
    uint32_t trace;
    uint32_t count; /* samples, or completed calls for CPU TIME */
    uint64_t cost;  /* self cost: samples, or milliseconds */
};

struct hp_cpu_report {
    enum hp_cpu_report_kind kind;
    uint64_t total; /* self cost over all traces, listed or not */
    const struct hp_cpu_row *rows;
    size_t n_rows;
};

struct hp_cpu_report_encoder {
    void (*report)(const struct hp_cpu_report *r);
};

extern const struct hp_cpu_report_encoder hp_ascii_cpu_report;
extern const struct hp_cpu_report_encoder hp_binary_cpu_report;

#endif
