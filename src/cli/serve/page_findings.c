/* The waste and suspects pages: what `hprof waste` and `hprof suspects` print, linked. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/serve/values.h"

enum { DUPS_SHOWN = 50, ACCUMULATED_SHOWN = 5 };

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void waste_kinds(hp_html *out, const hp_web *w)
{
    hp_html_raw(out, "<table><tr><th class=n>Bytes to gain</th><th class=n>Objects</th>"
                     "<th>Kind</th><th>Wasting most</th></tr>");
    for (int k = 0; k < HP_WASTE_KINDS; k++) {
        const hp_waste_kind *wk = &w->fx->waste.kinds[k];
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td><td>",
                    wk->bytes, wk->count);
        hp_html_text(out, hp_waste_kind_name(k));
        hp_html_raw(out, "</td><td>");
        if (wk->sample != HP_NO_OBJECT) {
            hp_web_object_link(out, w, wk->sample);
            hp_html_fmt(out, ", %" PRIu64 " bytes", wk->sample_bytes);
        }
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
}

int hp_page_waste(const hp_web *w, const hp_query *q, hp_html *out)
{
    (void)q;
    uint64_t total = 0, reachable = w->h.d.retained[0];
    for (int k = 0; k < HP_WASTE_KINDS; k++)
        total += w->fx->waste.kinds[k].bytes;
    hp_web_begin(out, w, "Waste");
    hp_html_fmt(out,
                "<p>%" PRIu64 " bytes could be saved, %.1f%% of %" PRIu64
                " reachable bytes. Each object link leads to its path from the GC roots.</p>",
                total, share(total, reachable), reachable);
    waste_kinds(out, w);
    hp_html_fmt(out, "<h2>Duplicate strings</h2><p>%" PRIu64 " values occur more than once%s.</p>",
                w->fx->waste.distinct_dups,
                w->fx->waste.ndups > DUPS_SHOWN ? "; the 50 wasting most shown" : "");
    hp_html_raw(out, "<table><tr><th class=n>Bytes to gain</th><th class=n>Copies</th>"
                     "<th>Value</th><th>One copy</th></tr>");
    for (size_t i = 0; i < w->fx->waste.ndups && i < DUPS_SHOWN; i++) {
        const hp_dup_string *d = &w->fx->waste.dups[i];
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td><td>",
                    d->bytes, d->count);
        hp_web_string(out, w, d->string, 80);
        hp_html_raw(out, "</td><td>");
        hp_web_object_link(out, w, d->string);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
    hp_web_end(out);
    return 200;
}

/* What an accumulation point dominates directly, by class. */
static void accumulated(hp_html *out, const hp_web *w, uint32_t obj)
{
    hp_accumulated *v;
    size_t n;
    hp_error e;
    if (hp_suspect_accumulates(&w->h, obj, &v, &n, &e) != 0) return;
    if (n == 0) {
        hp_html_raw(out, "<p>(no other objects)</p>");
        free(v);
        return;
    }
    hp_html_raw(out, "<table><tr><th class=n>Retained</th><th class=n>Objects</th>"
                     "<th>Class</th></tr>");
    for (size_t i = 0; i < n && i < ACCUMULATED_SHOWN; i++) {
        char name[512];
        hp_accumulated_name(&w->h, v[i].key, name, sizeof name);
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td><td>",
                    v[i].retained, v[i].count);
        hp_html_text(out, name);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
    free(v);
}

static void suspect(hp_html *out, const hp_web *w, const hp_suspect *s, size_t i)
{
    const hp_domtree *d = &w->h.d;
    double pct = share(s->retained, d->retained[0]);
    hp_html_fmt(out, "<h2>Suspect %zu</h2><p>", i + 1);
    if (s->row) {
        hp_html_fmt(out,
                    "%" PRIu64 " instances of this class retain %" PRIu64
                    " bytes (%.1f%%); the largest is ",
                    s->row->count, s->retained, pct);
        hp_web_object_link(out, w, s->object);
    } else {
        hp_web_object_link(out, w, s->object);
        hp_html_fmt(out, " retains %" PRIu64 " bytes (%.1f%%)", s->retained, pct);
    }
    hp_html_raw(out, ".</p>");
    if (!s->row) {
        hp_html_raw(out, "<p>It accumulates in ");
        hp_web_object_link(out, w, s->accumulation);
        hp_html_fmt(out, ", %" PRIu64 " bytes, which dominates directly:</p>",
                    hp_dom_retained(d, s->accumulation));
        accumulated(out, w, s->accumulation);
    }
    hp_html_raw(out, "<p>Path from the GC roots:</p>");
    hp_web_path(out, w, s->object);
}

int hp_page_suspects(const hp_web *w, const hp_query *q, hp_html *out)
{
    (void)q;
    hp_web_begin(out, w, "Suspects");
    hp_html_fmt(out,
                "<p>Objects and classes retaining 10%% or more of the %" PRIu64
                " reachable bytes: %zu.</p>",
                w->h.d.retained[0], w->fx->nsuspects);
    for (size_t i = 0; i < w->fx->nsuspects; i++)
        suspect(out, w, &w->fx->suspects[i], i);
    hp_web_end(out);
    return 200;
}
