/* The object page: fields, references, referrers, retained size, path to the roots. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/heap/lookup.h"
#include "cli/serve/values.h"

enum { SHOWN = 200 };

static void field_row(hp_html *out, const hp_web *w, uint64_t name_id, uint8_t type, uint64_t v)
{
    char name[256];
    hp_html_raw(out, "<tr><td>");
    hp_html_text(out, hp_index_cstring(&w->h.ix, name_id, name, sizeof name, "?"));
    hp_html_raw(out, "</td><td>");
    hp_web_value(out, w, type, v);
    hp_html_raw(out, "</td></tr>");
}

static void instance_fields(hp_html *out, const hp_web *w, const hp_sub *s)
{
    const hp_file *f = w->h.ix.f;
    const hp_class *k = hp_classes_get(&w->h.g.classes, s->ref);
    hp_html_raw(out, "<h2>Fields</h2><table>");
    if (!k || hp_class_field_bytes(k, f->id_size) != s->data_len) k = NULL;
    const uint8_t *val = s->data;
    for (size_t steps = 0; k && steps <= w->h.g.classes.n; steps++) {
        const uint8_t *p = k->fields;
        for (unsigned i = 0; i < k->nfields; i++) {
            hp_field fl;
            hp_next_field(f, &p, &fl);
            unsigned size = hp_type_size(fl.type, f->id_size);
            field_row(out, w, fl.name_id, fl.type, hp_value(val, size));
            val += size;
        }
        k = k->super ? hp_classes_get(&w->h.g.classes, k->super) : NULL;
    }
    hp_html_raw(out, "</table>");
}

static void contents(hp_html *out, const hp_web *w, const hp_sub *s)
{
    const hp_file *f = w->h.ix.f;
    if (s->tag == HP_INSTANCE_DUMP) {
        instance_fields(out, w, s);
    } else if (s->tag == HP_CLASS_DUMP) {
        const uint8_t *p = s->statics;
        hp_html_raw(out, "<h2>Static fields</h2><table>");
        for (unsigned i = 0; i < s->nstatics; i++) {
            hp_field fl;
            hp_next_static(f, &p, &fl);
            field_row(out, w, fl.name_id, fl.type, fl.value);
        }
        hp_html_raw(out, "</table>");
    } else if (s->tag == HP_OBJ_ARRAY_DUMP || s->tag == HP_PRIM_ARRAY_DUMP) {
        uint8_t type = s->tag == HP_OBJ_ARRAY_DUMP ? HP_T_OBJECT : s->elem_type;
        unsigned size = hp_type_size(type, f->id_size);
        hp_html_fmt(out, "<h2>Elements</h2><p>Length %" PRIu32 "%s.</p><table>", s->count,
                    s->count > SHOWN ? "; the first 200 shown" : "");
        for (uint32_t i = 0; i < s->count && i < SHOWN; i++) {
            hp_html_fmt(out, "<tr><td class=n>[%" PRIu32 "]</td><td>", i);
            hp_web_value(out, w, type, hp_value(s->data + (uint64_t)i * size, size));
            hp_html_raw(out, "</td></tr>");
        }
        hp_html_raw(out, "</table>");
    }
}

static void referrers(hp_html *out, const hp_web *w, uint32_t obj)
{
    uint32_t *src;
    size_t n, total;
    if (hp_heap_referrers(&w->h, obj, SHOWN, &src, &n, &total) != 0) {
        out->oom = 1;
        return;
    }
    hp_html_fmt(out, "<h2>Referrers</h2><p>%zu references to this object%s.</p><table>", total,
                total > SHOWN ? "; the first 200 shown" : "");
    for (size_t i = 0; i < n; i++) {
        char via[300];
        hp_graph_edge_name(&w->h.g, src[i], obj, via, sizeof via);
        hp_html_raw(out, "<tr><td>");
        hp_web_object_link(out, w, src[i]);
        hp_html_raw(out, "</td><td><code>");
        hp_html_text(out, via);
        hp_html_raw(out, "</code></td></tr>");
    }
    hp_html_raw(out, "</table>");
    free(src);
}

static void summary(hp_html *out, const hp_web *w, uint32_t obj, const hp_sub *s)
{
    const hp_domtree *d = &w->h.d;
    char roots[300];
    hp_html_raw(out, "<table><tr><td>Class</td><td>");
    if (s->tag == HP_PRIM_ARRAY_DUMP || s->tag == HP_PRIM_ARRAY_NODATA)
        hp_html_fmt(out, "<a href=\"/class?prim=%s\">%s[]</a>", hp_type_name(s->elem_type),
                    hp_type_name(s->elem_type));
    else
        hp_html_fmt(out, "<a href=\"/class?id=0x%" PRIx64 "\">class page</a>",
                    s->tag == HP_CLASS_DUMP ? s->id : s->ref);
    hp_html_fmt(out,
                "</td></tr><tr><td>Shallow bytes</td><td class=n>%" PRIu64 "</td></tr>"
                "<tr><td>Retained bytes</td><td class=n>%" PRIu64 "</td></tr>"
                "<tr><td>Immediate dominator</td><td>",
                hp_graph_shallow(&w->h.g, obj), hp_dom_retained(d, obj));
    uint32_t idom = hp_dom_idom(d, obj);
    if (idom == HP_NO_OBJECT)
        hp_html_raw(out, hp_dom_reachable(d, obj) ? "the GC roots" : "none (not reachable)");
    else
        hp_web_object_link(out, w, idom);
    hp_graph_root_kinds(&w->h.g, obj, roots, sizeof roots);
    hp_html_raw(out, "</td></tr><tr><td>GC root</td><td>");
    hp_html_text(out, roots[0] ? roots : "no");
    hp_html_raw(out, "</td></tr>");
    hp_html_raw(out, "<tr><td>Value</td><td>");
    if (!hp_web_string(out, w, obj, 1000)) hp_html_raw(out, "&mdash;");
    hp_html_fmt(out,
                "</td></tr></table><p><a href=\"/dominators?id=0x%" PRIx64
                "\">Objects it dominates</a></p>",
                s->id);
}

int hp_page_object(const hp_web *w, const hp_query *q, hp_html *out)
{
    uint32_t obj = hp_web_object_arg(w, q->id);
    if (obj == HP_NO_OBJECT)
        return hp_web_error(out, w, 404, "No such object", q->id ? q->id : "(no id)");
    char title[600], what[512];
    hp_sub s;
    hp_graph_object(&w->h.g, obj, &s);
    hp_graph_describe(&w->h.g, obj, what, sizeof what);
    snprintf(title, sizeof title, "0x%" PRIx64 " %s", s.id, what);
    hp_web_begin(out, w, title);
    summary(out, w, obj, &s);
    hp_html_raw(out, "<h2>Path from the GC roots</h2>");
    hp_web_path(out, w, obj);
    contents(out, w, &s);
    referrers(out, w, obj);
    hp_web_end(out);
    return 200;
}
