/* The ascii CPU SAMPLES / CPU TIME (ms) table in the JDK 8 agent's layout. */
#include "agent/core/agent.h"
#include "agent/output/ascii/text.h"
#include "agent/output/cpu_report_encoder.h"

static void report(const struct hp_cpu_report *r)
{
    struct hp_text t;
    char date[32];
    const char *title = r->kind == HP_CPU_REPORT_SAMPLES ? "CPU SAMPLES" : "CPU TIME (ms)";
    hp_ctime(date);
    hp_text_init(&t);
    /* The original cast the total to int. */
    hp_text_printf(&t, "%s BEGIN (total = %d) %s", title, (int)r->total, date);
    if (r->n_rows) hp_text_printf(&t, "rank   self  accum   count trace method\n");
    double accum = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct hp_cpu_row *row = &r->rows[i];
        double self = r->total ? (double)row->cost / (double)r->total : 0;
        accum += self;
        hp_text_printf(&t, "%4u %5.2f%% %5.2f%% %7u %5u ", (unsigned)(i + 1), self * 100,
                       accum * 100, row->count, row->trace);
        hp_text_top_method(&t, row->trace);
        hp_text_printf(&t, "\n");
    }
    hp_text_printf(&t, "%s END\n", title);
    hp_text_emit(&t);
}

const struct hp_cpu_report_encoder hp_ascii_cpu_report = {report};
