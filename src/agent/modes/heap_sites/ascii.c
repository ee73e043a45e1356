/* SITES ... SITES END, laid out as reference section 3.4 shows. */
#include "agent/core/agent.h"
#include "agent/modes/heap_sites/sites_encoder.h"
#include "agent/output/ascii/text.h"
#include "agent/tables/class.h"

#include <inttypes.h>

static void sites(const struct hp_sites_report *r)
{
    struct hp_text t;
    char date[32];
    hp_text_init(&t);
    hp_ctime(date);
    hp_text_printf(&t, "SITES BEGIN (ordered by %s) %s",
                   r->flags & HP_SITES_BY_ALLOC ? "allocated bytes" : "live bytes", date);
    hp_text_printf(&t, "          percent          live          alloc'ed  stack class\n");
    hp_text_printf(&t, " rank   self  accum     bytes objs     bytes  objs trace name\n");
    double accum = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct hp_sites_row *s = &r->rows[i];
        double self = r->live_bytes ? (double)s->live_bytes * 100.0 / (double)r->live_bytes : 0.0;
        accum += self;
        const struct hp_class *c = hp_class_get(s->class_serial);
        hp_text_printf(
            &t, "%5zu %5.2f%% %5.2f%% %9" PRIu64 " %4" PRIu64 " %9" PRIu64 " %5" PRIu64 " %5u %s\n",
            i + 1, self, accum, s->live_bytes, s->live_objs, s->alloc_bytes, s->alloc_objs,
            s->trace_serial, c && c->name ? c->name : "<unknown>");
    }
    hp_text_printf(&t, "SITES END\n");
    hp_text_emit(&t);
}

const struct hp_sites_encoder hp_ascii_sites_encoder = {sites, NULL};
