/* The class page: layout, statics, totals and the largest instances. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/lookup.h"
#include "cli/serve/values.h"

enum { LARGEST = 50 };

/* The class's instances and arrays, or (prim != 0) the primitive arrays of that type. */
static void largest_instances(hp_html *out, const hp_web *w, uint32_t class_index, uint8_t prim)
{
    const hp_domtree *d = &w->h.d;
    uint32_t best[LARGEST], *objs;
    size_t n = 0, total;
    uint32_t word = prim ? HP_CLASSOF_PRIM_ARRAY | prim : HP_CLASSOF_INSTANCE | class_index;
    if (hp_heap_instances(&w->h, word, &objs, &total) != 0) {
        out->oom = 1;
        return;
    }
    for (size_t j = 0; j < total; j++) {
        uint32_t i = objs[j];
        uint64_t r = hp_dom_retained(d, i);
        size_t at = n < LARGEST ? n++ : LARGEST;
        while (at > 0 && hp_dom_retained(d, best[at - 1]) < r) {
            if (at < LARGEST) best[at] = best[at - 1];
            at--;
        }
        if (at < LARGEST) best[at] = i;
    }
    free(objs);
    hp_html_fmt(out, "<h2>Largest instances</h2><p>%zu of %zu, by retained size.</p>", n, total);
    hp_html_raw(out, "<table><tr><th class=n>Retained</th><th class=n>Shallow</th>"
                     "<th>Object</th></tr>");
    for (size_t i = 0; i < n; i++) {
        hp_html_fmt(out, "<tr><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td><td>",
                    hp_dom_retained(d, best[i]), hp_graph_shallow(&w->h.g, best[i]));
        hp_web_object_link(out, w, best[i]);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
}

static void totals(hp_html *out, const hp_web *w, uint64_t class_id, uint8_t prim)
{
    for (size_t i = 0; i < w->fx->histo.nrows; i++) {
        const hp_histo_row *r = &w->fx->histo.rows[i];
        if (r->prim_type != prim || (!prim && r->class_id != class_id)) continue;
        hp_html_fmt(out,
                    "<p>%" PRIu64 " instances, %" PRIu64 " shallow bytes, %" PRIu64
                    " bytes retained together.</p>",
                    r->count, r->bytes, r->retained);
    }
}

static void fields(hp_html *out, const hp_web *w, const hp_class *k)
{
    const hp_file *f = w->h.ix.f;
    hp_sub s;
    hp_graph_object(&w->h.g, hp_objects_find(&w->h.g.obj, k->id), &s);
    hp_html_raw(out, "<h2>Static fields</h2><table>");
    const uint8_t *p = s.statics;
    for (unsigned i = 0; i < s.nstatics; i++) {
        hp_field fl;
        char name[256];
        hp_next_static(f, &p, &fl);
        hp_html_raw(out, "<tr><td>");
        hp_html_text(out, hp_index_cstring(&w->h.ix, fl.name_id, name, sizeof name, "?"));
        hp_html_raw(out, "</td><td>");
        hp_web_value(out, w, fl.type, fl.value);
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table><h2>Instance fields</h2><table>");
    p = k->fields;
    for (unsigned i = 0; i < k->nfields; i++) {
        hp_field fl;
        char name[256];
        hp_next_field(f, &p, &fl);
        hp_html_raw(out, "<tr><td>");
        hp_html_text(out, hp_index_cstring(&w->h.ix, fl.name_id, name, sizeof name, "?"));
        hp_html_raw(out, "</td><td>");
        hp_html_text(out, hp_type_name(fl.type));
        hp_html_raw(out, "</td></tr>");
    }
    hp_html_raw(out, "</table>");
}

static int prim_type_named(const char *name)
{
    for (int t = HP_T_BOOLEAN; t <= HP_T_LONG; t++)
        if (strcmp(hp_type_name(t), name) == 0) return t;
    return 0;
}

int hp_page_class(const hp_web *w, const hp_query *q, hp_html *out)
{
    char name[512];
    if (q->prim) {
        int t = prim_type_named(q->prim);
        if (!t) return hp_web_error(out, w, 404, "No such primitive type", q->prim);
        snprintf(name, sizeof name, "%s[]", q->prim);
        hp_web_begin(out, w, name);
        totals(out, w, 0, (uint8_t)t);
        largest_instances(out, w, 0, (uint8_t)t);
        hp_web_end(out);
        return 200;
    }
    uint32_t obj = hp_web_object_arg(w, q->id);
    const hp_class *k = obj == HP_NO_OBJECT
                            ? NULL
                            : hp_classes_get(&w->h.g.classes, hp_objects_id(&w->h.g.obj, obj));
    if (!k) return hp_web_error(out, w, 404, "No such class", q->id ? q->id : "(no id)");
    hp_index_class_name(&w->h.ix, k->id, name, sizeof name);
    hp_web_begin(out, w, name);
    hp_html_raw(out, "<p>Class object: ");
    hp_web_object_link(out, w, obj);
    if (k->super && hp_classes_get(&w->h.g.classes, k->super)) {
        char super[512];
        hp_index_class_name(&w->h.ix, k->super, super, sizeof super);
        hp_html_fmt(out, "<br>Super class: <a href=\"/class?id=0x%" PRIx64 "\">", k->super);
        hp_html_text(out, super);
        hp_html_raw(out, "</a>");
    }
    hp_html_raw(out, "</p>");
    totals(out, w, k->id, 0);
    fields(out, w, k);
    largest_instances(out, w, (uint32_t)(k - w->h.g.classes.v), 0);
    hp_web_end(out);
    return 200;
}
