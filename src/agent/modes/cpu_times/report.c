#include "agent/modes/cpu_times/report.h"

#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/modes/cpu_times/cpu_times_encoder.h"
#include "agent/output/cpu_report_encoder.h"
#include "agent/tables/trace.h"

#include <stdlib.h>

/* Nanoseconds to the report's milliseconds, rounded to nearest. */
static uint64_t ms(uint64_t ns)
{
    return (ns + 500000) / 1000000;
}

static int by_self(const void *a, const void *b)
{
    const struct hp_ct_row *x = a, *y = b;
    if (x->self_ns != y->self_ns) return x->self_ns < y->self_ns ? 1 : -1;
    return (x->trace > y->trace) - (x->trace < y->trace);
}

static int by_count(const void *a, const void *b)
{
    const struct hp_ct_row *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return (x->trace > y->trace) - (x->trace < y->trace);
}

void hp_ct_report_times(struct hp_ct_row *rows, size_t n)
{
    qsort(rows, n, sizeof *rows, by_self);
    uint64_t total_ns = 0, total_ms = 0;
    for (size_t i = 0; i < n; i++) {
        total_ns += rows[i].self_ns;
        total_ms += ms(rows[i].self_ns);
    }
    struct hp_cpu_row *out = malloc(sizeof *out * (n ? n : 1));
    size_t k = 0;
    /* Stop at the first trace below the cutoff (measured in ns, so that
     * sub-millisecond traces are ranked faithfully). Traces without calls in
     * this interval are left out rather than ending the table: they may
     * still carry time, of calls that ended before the previous dump but
     * were scaled to CPU time after it. */
    for (size_t i = 0; out && i < n; i++) {
        if (total_ns && (double)rows[i].self_ns / (double)total_ns < hp.opt.cutoff) break;
        if (rows[i].count == 0) continue;
        out[k++] = (struct hp_cpu_row){rows[i].trace, rows[i].count, ms(rows[i].self_ns)};
    }
    struct hp_cpu_report r = {HP_CPU_REPORT_TIME, total_ms, out, k};
    hp_out_lock();
    for (size_t i = 0; i < k; i++)
        hp_trace_write(out[i].trace);
    hp_ascii_cpu_report.report(&r);
    hp_out_unlock();
    free(out);
}

void hp_ct_report_old(struct hp_ct_row *rows, size_t n)
{
    qsort(rows, n, sizeof *rows, by_count);
    struct hp_cpu_old_row *out = malloc(sizeof *out * (n ? n : 1));
    size_t k = 0;
    for (size_t i = 0; out && i < n && rows[i].count; i++)
        out[k++] = (struct hp_cpu_old_row){rows[i].count, rows[i].trace, ms(rows[i].total_ns)};
    hp_ascii_cpu_times.old_report(out, k);
    free(out);
}
