#include "report.h"

#include "../../core/agent.h"
#include "../../core/error.h"
#include "../../io/writer.h"
#include "../../tables/trace.h"
#include "site.h"
#include "weight.h"

#include <stdlib.h>

/* Live bytes descending; ties by allocated bytes descending, then by trace
 * and class serial, so equal runs print in one order. */
static int by_live_bytes(const void *a, const void *b)
{
    const struct hp_sites_row *x = a, *y = b;
    if (x->live_bytes != y->live_bytes) return x->live_bytes < y->live_bytes ? 1 : -1;
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    if (x->trace_serial != y->trace_serial) return x->trace_serial < y->trace_serial ? -1 : 1;
    return x->class_serial < y->class_serial ? -1 : x->class_serial > y->class_serial;
}

void hp_sites_report_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live)
{
    uint32_t n = hp_site_count();
    struct hp_sites_row *rows = calloc((size_t)n + 1, sizeof *rows);
    if (rows == NULL) {
        hp_error("out of memory writing SITES");
        return;
    }
    struct hp_sites_report r = {.cutoff = (float)hp.opt.cutoff, .rows = rows};
    size_t used = 0;
    for (uint32_t i = 1; i <= n; i++) {
        struct hp_site *s = hp_site_get(i);
        if (s == NULL) continue;
        struct hp_sites_row *row = &rows[used++];
        row->class_serial = s->class_serial;
        row->trace_serial = s->trace_serial;
        row->alloc_objs = hp_sites_objs(atomic_load(&s->alloc_objs));
        row->alloc_bytes = atomic_load(&s->alloc_bytes);
        if (i <= live->n_sites) {
            row->live_objs = hp_sites_objs(live->objs[i]);
            row->live_bytes = live->bytes[i];
        }
        r.live_bytes += row->live_bytes;
        r.live_objs += row->live_objs;
        r.alloc_bytes += row->alloc_bytes;
        r.alloc_objs += row->alloc_objs;
    }
    qsort(rows, used, sizeof *rows, by_live_bytes);
    /* Stop at the first site below the cutoff (live bytes / all live). */
    size_t shown = 0;
    while (shown < used) {
        double ratio = r.live_bytes ? (double)rows[shown].live_bytes / (double)r.live_bytes : 0.0;
        if (ratio < hp.opt.cutoff) break;
        shown++;
    }
    r.n_rows = shown;
    hp_out_lock();
    for (size_t i = 0; i < shown; i++)
        hp_trace_write(rows[i].trace_serial);
    enc->sites(&r);
    hp_out_unlock();
    free(rows);
}
