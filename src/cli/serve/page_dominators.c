/* The dominator tree, one level per page: a node's dominators up to the roots, then its children.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/heap/lookup.h"
#include "cli/serve/web.h"

enum { CHILDREN = 100 };

static int by_retained(const void *a, const void *b, void *ctx)
{
    const hp_domtree *d = ctx;
    uint64_t x = d->retained[*(const uint32_t *)a], y = d->retained[*(const uint32_t *)b];
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void chain_to_root(hp_html *out, const hp_web *w, uint32_t obj)
{
    const hp_domtree *d = &w->h.d;
    hp_html_raw(out, "<p>Dominated by: ");
    size_t shown = 0;
    for (uint32_t v = hp_dom_idom(d, obj); v != HP_NO_OBJECT && shown < 64;
         v = hp_dom_idom(d, v), shown++) {
        hp_html_fmt(out, "<a href=\"/dominators?id=0x%" PRIx64 "\">0x%" PRIx64 "</a> &larr; ",
                    hp_objects_id(&w->h.g.obj, v), hp_objects_id(&w->h.g.obj, v));
    }
    hp_html_raw(out, "<a href=\"/dominators\">the GC roots</a></p>");
}

int hp_page_dominators(const hp_web *w, const hp_query *q, hp_html *out)
{
    const hp_domtree *d = &w->h.d;
    uint32_t obj = HP_NO_OBJECT, vertex = 0;
    if (q->id) {
        obj = hp_web_object_arg(w, q->id);
        if (obj == HP_NO_OBJECT) return hp_web_error(out, w, 404, "No such object", q->id);
        vertex = d->pre[obj];
    }
    uint32_t *v;
    size_t nkids, n = 0;
    if (hp_heap_children(&w->h, vertex, &v, &nkids) != 0)
        return hp_web_error(out, w, 500, "Out of memory", NULL);
    for (size_t i = 0; i < nkids; i++)
        if (hp_dom_reachable(d, d->vertex[v[i]])) v[n++] = v[i];
    qsort_r(v, n, sizeof *v, by_retained, (void *)d);
    hp_web_begin(out, w, obj == HP_NO_OBJECT ? "Dominator tree" : "Dominated objects");
    if (obj != HP_NO_OBJECT) {
        hp_html_raw(out, "<p>Object: ");
        hp_web_object_link(out, w, obj);
        hp_html_fmt(out, ", retains %" PRIu64 " bytes.</p>", d->retained[vertex]);
        chain_to_root(out, w, obj);
    }
    hp_html_fmt(out, "<p>%zu objects directly dominated%s.</p>", n,
                n > CHILDREN ? "; the largest 100 shown" : "");
    hp_html_raw(out, "<table><tr><th class=n>Retained</th><th class=n>Shallow</th><th>Object</th>"
                     "<th></th></tr>");
    for (size_t i = 0; i < n && i < CHILDREN; i++) {
        uint32_t c = d->vertex[v[i]];
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td><td>",
                    d->retained[v[i]], hp_graph_shallow(&w->h.g, c));
        hp_web_object_link(out, w, c);
        hp_html_fmt(out, "</td><td><a href=\"/dominators?id=0x%" PRIx64 "\">expand</a></td></tr>",
                    hp_objects_id(&w->h.g.obj, c));
    }
    hp_html_raw(out, "</table>");
    hp_web_end(out);
    free(v);
    return 200;
}
