/* The overview and the class histogram pages. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/lookup.h"
#include "cli/serve/web.h"

static void class_link(hp_html *out, const hp_web *w, const hp_histo_row *row)
{
    char name[512];
    hp_histo_row_name(&w->h.ix, row, name, sizeof name);
    if (row->prim_type)
        hp_html_fmt(out, "<a href=\"/class?prim=%s\">", hp_type_name(row->prim_type));
    else
        hp_html_fmt(out, "<a href=\"/class?id=0x%" PRIx64 "\">", row->class_id);
    hp_html_text(out, name);
    hp_html_raw(out, "</a>");
}

/* Rows ordered by one column, largest first (names: alphabetical). */
static int by_column(const void *a, const void *b, void *ctx)
{
    const hp_histo_row *x = *(const hp_histo_row *const *)a, *y = *(const hp_histo_row *const *)b;
    const char *key = ctx;
    uint64_t vx = x->retained, vy = y->retained;
    if (!strcmp(key, "shallow")) vx = x->bytes, vy = y->bytes;
    if (!strcmp(key, "count")) vx = x->count, vy = y->count;
    if (vx != vy) return vx < vy ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* Histogram rows sorted by `key` ("retained", "shallow", "count"); caller frees. */
static const hp_histo_row **sorted_rows(const hp_web *w, const char *key)
{
    const hp_histo_row **v = malloc((w->fx->histo.nrows + 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < w->fx->histo.nrows; i++)
        v[i] = &w->fx->histo.rows[i];
    qsort_r(v, w->fx->histo.nrows, sizeof *v, by_column, (void *)key);
    return v;
}

static void histo_table(hp_html *out, const hp_web *w, const char *key, size_t limit)
{
    const hp_histo_row **v = sorted_rows(w, key);
    if (!v) {
        out->oom = 1;
        return;
    }
    hp_html_raw(out, "<table><tr><th class=n><a href=\"/histo?sort=count\">Instances</a></th>"
                     "<th class=n><a href=\"/histo?sort=shallow\">Shallow bytes</a></th>"
                     "<th class=n><a href=\"/histo?sort=retained\">Retained bytes</a></th>"
                     "<th>Class</th></tr>");
    for (size_t i = 0; i < w->fx->histo.nrows && i < limit; i++) {
        hp_html_fmt(out,
                    "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64
                    "</td><td class=n>%" PRIu64 "</td><td>",
                    v[i]->count, v[i]->bytes, v[i]->retained);
        class_link(out, w, v[i]);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
    free(v);
}

int hp_page_histo(const hp_web *w, const hp_query *q, hp_html *out)
{
    const char *key = q->sort ? q->sort : "retained";
    if (strcmp(key, "retained") && strcmp(key, "shallow") && strcmp(key, "count"))
        return hp_web_error(out, w, 400, "Unknown sort key", key);
    hp_web_begin(out, w, "Class histogram");
    hp_html_fmt(out, "<p>%zu classes, %" PRIu64 " objects, %" PRIu64 " bytes; sorted by ",
                w->fx->histo.nrows, w->fx->histo.instances, w->fx->histo.bytes);
    hp_html_text(out, key);
    hp_html_raw(out, ".</p>");
    histo_table(out, w, key, SIZE_MAX);
    hp_web_end(out);
    return 200;
}

int hp_page_overview(const hp_web *w, const hp_query *q, hp_html *out)
{
    (void)q;
    const hp_graph *g = &w->h.g;
    const hp_domtree *d = &w->h.d;
    hp_web_begin(out, w, "Heap dump overview");
    hp_html_fmt(out,
                "<table><tr><td>Heap dump</td><td class=n>%zu of %zu</td></tr>"
                "<tr><td>Objects</td><td class=n>%" PRIu32 "</td></tr>"
                "<tr><td>References</td><td class=n>%" PRIu32 "</td></tr>"
                "<tr><td>GC roots</td><td class=n>%zu</td></tr>"
                "<tr><td>Classes</td><td class=n>%zu</td></tr>"
                "<tr><td>Shallow bytes</td><td class=n>%" PRIu64 "</td></tr>"
                "<tr><td>Reachable bytes</td><td class=n>%" PRIu64 "</td></tr></table>",
                w->h.dump + 1, w->h.ix.ndumps, g->obj.n, g->nedges, g->nroots, g->classes.n,
                w->fx->histo.bytes, d->retained[0]);
    hp_html_raw(out, "<h2>Largest retainers</h2><table><tr><th class=n>Retained</th>"
                     "<th>Object</th></tr>");
    uint32_t best[10], *kids;
    size_t nbest = 0, nkids;
    if (hp_heap_children(&w->h, 0, &kids, &nkids) != 0) {
        out->oom = 1;
        return 500;
    }
    for (size_t i = 0; i < nkids; i++) { /* the 10 largest children of the root */
        uint32_t c = kids[i];
        size_t at = nbest < 10 ? nbest++ : 10;
        while (at > 0 && d->retained[best[at - 1]] < d->retained[c]) {
            if (at < 10) best[at] = best[at - 1];
            at--;
        }
        if (at < 10) best[at] = c;
    }
    free(kids);
    for (size_t i = 0; i < nbest; i++) {
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td>", d->retained[best[i]]);
        hp_web_object_link(out, w, d->vertex[best[i]]);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table><p><a href=\"/dominators\">The whole dominator tree</a></p>"
                     "<h2>Classes retaining most</h2>");
    histo_table(out, w, "retained", 10);
    hp_html_raw(out, "<p><a href=\"/histo\">All classes</a></p>");
    hp_web_end(out);
    return 200;
}
