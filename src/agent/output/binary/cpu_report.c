/* The binary CPU SAMPLES record (0x0D). The format has no CPU TIME record;
 * like the original, binary output carries none for cpu=times. */
#include "agent/output/binary/record.h"
#include "agent/output/cpu_report_encoder.h"

static void report(const struct hp_cpu_report *r)
{
    if (r->kind != HP_CPU_REPORT_SAMPLES) return;
    struct hp_rec rec;
    hp_rec_begin(&rec, HP_CPU_SAMPLES);
    hp_rec_u4(&rec, (uint32_t)r->total);
    hp_rec_u4(&rec, (uint32_t)r->n_rows);
    for (size_t i = 0; i < r->n_rows; i++) {
        hp_rec_u4(&rec, r->rows[i].count);
        hp_rec_u4(&rec, r->rows[i].trace);
    }
    hp_rec_end(&rec);
}

const struct hp_cpu_report_encoder hp_binary_cpu_report = {report};
