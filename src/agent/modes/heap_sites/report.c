#include "agent/modes/heap_sites/report.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/io/writer.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/weight.h"
#include "agent/tables/trace.h"

#include <stdlib.h>
#include <string.h>

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

static int by_alloc_bytes(const void *a, const void *b)
{
    const struct hp_sites_row *x = a, *y = b;
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    return by_live_bytes(a, b);
}

/* The counts each site had in the last report, for incremental requests
 * ("changed since the last SITES"); [site], grown as sites appear. */
static struct hp_sites_row *last;
static uint32_t n_last;

static bool changed(uint32_t site, const struct hp_sites_row *now)
{
    if (site > n_last) return true;
    const struct hp_sites_row *was = &last[site];
    return was->live_bytes != now->live_bytes || was->live_objs != now->live_objs ||
           was->alloc_bytes != now->alloc_bytes || was->alloc_objs != now->alloc_objs;
}

static void remember(uint32_t site, const struct hp_sites_row *now)
{
    if (site > n_last) {
        uint32_t n = site > 2 * n_last ? site : 2 * n_last;
        struct hp_sites_row *more = realloc(last, ((size_t)n + 1) * sizeof *more);
        if (more == NULL) return; /* the site then counts as changed next time */
        memset(more + n_last + 1, 0, (size_t)(n - n_last) * sizeof *more);
        last = more;
        n_last = n;
    }
    last[site] = *now;
}

/* Site i's counts, added to the totals in *r; false if there is no site i. */
static bool site_row(uint32_t i, const struct hp_sites_live *live, struct hp_sites_row *row,
                     struct hp_sites_report *r)
{
    struct hp_site *s = hp_site_get(i);
    if (s == NULL) return false;
    *row = (struct hp_sites_row){.class_serial = s->class_serial, .trace_serial = s->trace_serial};
    row->alloc_objs = hp_sites_objs(atomic_load(&s->alloc_objs));
    row->alloc_bytes = atomic_load(&s->alloc_bytes);
    if (i <= live->n_sites) {
        row->live_objs = hp_sites_objs(live->objs[i]);
        row->live_bytes = live->bytes[i];
    }
    r->live_bytes += row->live_bytes;
    r->live_objs += row->live_objs;
    r->alloc_bytes += row->alloc_bytes;
    r->alloc_objs += row->alloc_objs;
    return true;
}

/* Every site 1..n with something allocated or live (none when cleared by
 * net= CONTROL), with the totals over all of them. Reports are serialised
 * by the core's dump lock, which also guards `last`. */
static size_t collect(uint32_t n, const struct hp_sites_live *live, struct hp_sites_row *rows,
                      struct hp_sites_report *r, bool incremental)
{
    size_t used = 0;
    for (uint32_t i = 1; i <= n; i++) {
        struct hp_sites_row row;
        if (!site_row(i, live, &row, r)) continue;
        bool listed = (row.alloc_objs || row.live_objs) && (!incremental || changed(i, &row));
        remember(i, &row);
        if (listed) rows[used++] = row;
    }
    return used;
}

void hp_sites_report_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live,
                           const struct hp_sites_query *q)
{
    /* Counted once: threads still allocating add sites while the report
     * is made (a second count overran `rows`: heap=all, SIGQUITs during
     * class churn). Sites added since appear in the next report. */
    uint32_t n = hp_site_count();
    struct hp_sites_row *rows = calloc((size_t)n + 1, sizeof *rows);
    if (rows == NULL) {
        hp_error("out of memory writing SITES");
        return;
    }
    struct hp_sites_report r = {.cutoff = (float)q->cutoff, .flags = q->flags, .rows = rows};
    size_t used = collect(n, live, rows, &r, q->flags & HP_SITES_INCREMENTAL);
    bool by_alloc = q->flags & HP_SITES_BY_ALLOC;
    qsort(rows, used, sizeof *rows, by_alloc ? by_alloc_bytes : by_live_bytes);
    /* Stop at the first site whose share of the sort key is below the
     * cutoff (the original measured live bytes even when sorting by
     * allocated bytes, ending that list at the first mostly dead site). */
    uint64_t total = by_alloc ? r.alloc_bytes : r.live_bytes;
    size_t shown = 0;
    while (shown < used) {
        uint64_t key = by_alloc ? rows[shown].alloc_bytes : rows[shown].live_bytes;
        double ratio = total ? (double)key / (double)total : 0.0;
        if (ratio < q->cutoff) break;
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

void hp_sites_summary_write(const struct hp_sites_encoder *enc, const struct hp_sites_live *live)
{
    struct hp_sites_report r = {0};
    struct hp_sites_row row;
    uint32_t n = hp_site_count();
    for (uint32_t i = 1; i <= n; i++)
        site_row(i, live, &row, &r);
    enc->heap_summary(&r);
}
