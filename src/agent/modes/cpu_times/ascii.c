/* cpu=old's report, the JDK 8 agent's imitation of the old -prof format: a
 * "count callee caller time" line, then one line per trace. */
#include "agent/modes/cpu_times/cpu_times_encoder.h"
#include "agent/output/ascii/text.h"
#include "agent/tables/class.h"
#include "agent/tables/frame.h"
#include "agent/tables/trace.h"

#include <inttypes.h>

/* "<class>.<method><signature>" of frame i of a trace, or `missing`. */
static void method_sig(struct hp_text *t, const struct hp_trace *tr, uint32_t i,
                       const char *missing)
{
    const struct hp_frame *f = tr && i < tr->n_frames ? hp_frame_get(tr->frames[i]) : NULL;
    const struct hp_class *c = f ? hp_class_get(f->method->class_serial) : NULL;
    if (f == NULL || f->method->name == NULL) {
        hp_text_printf(t, "%s", missing);
        return;
    }
    hp_text_printf(t, "%s.%s%s", c && c->name ? c->name : "<Unknown Class>", f->method->name,
                   f->method->sig ? f->method->sig : "");
}

static void old_report(const struct hp_cpu_old_row *rows, size_t n)
{
    struct hp_text t;
    hp_text_init(&t);
    hp_text_printf(&t, "count callee caller time\n");
    for (size_t i = 0; i < n; i++) {
        const struct hp_trace *tr = hp_trace_get(rows[i].trace);
        hp_text_printf(&t, "%d ", (int)rows[i].count);
        method_sig(&t, tr, 0, "<unknown callee>");
        hp_text_printf(&t, " ");
        method_sig(&t, tr, 1, "<unknown caller>");
        hp_text_printf(&t, " %d\n", (int)rows[i].total_ms);
    }
    hp_text_emit(&t);
}

const struct hp_cpu_times_encoder hp_ascii_cpu_times = {old_report};
