#include "cli/serve/web.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/targets.h"

int hp_web_open(hp_web *w, const hp_file *f, const hp_opts *o, FILE *err)
{
    hp_error e = {0};
    memset(w, 0, sizeof *w);
    w->name = f->path;
    int rc = hp_heap_open(&w->h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    w->fx = w->h.fx;
    if (hp_paths_build(&w->paths, &w->h.g, 0, &e) != 0) {
        hp_report(err, f, &e);
        hp_web_close(w);
        return HP_EXIT_MALFORMED;
    }
    return HP_EXIT_OK;
}

void hp_web_close(hp_web *w)
{
    hp_paths_free(&w->paths);
    hp_heap_close(&w->h);
    memset(w, 0, sizeof *w);
}

static const char style[] =
    "<style>body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}"
    "td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}"
    "td.n,th.n{text-align:right}nav a{margin-right:1em}code{font-size:90%}</style>";

void hp_web_begin(hp_html *out, const hp_web *w, const char *title)
{
    hp_html_raw(out, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>");
    hp_html_text(out, title);
    hp_html_raw(out, " - hprof</title>");
    hp_html_raw(out, style);
    hp_html_raw(out, "</head><body><nav><a href=\"/\">Overview</a><a href=\"/histo\">Histogram</a>"
                     "<a href=\"/dominators\">Dominator tree</a><a href=\"/waste\">Waste</a>"
                     "<a href=\"/suspects\">Suspects</a><small>");
    hp_html_text(out, w->name);
    hp_html_raw(out, "</small></nav><h1>");
    hp_html_text(out, title);
    hp_html_raw(out, "</h1>");
}

void hp_web_end(hp_html *out)
{
    hp_html_raw(out, "</body></html>\n");
}

static const char *status_title(int status)
{
    switch (status) {
    case 400:
        return "Bad request";
    case 404:
        return "Not found";
    case 405:
        return "Method not allowed";
    case 414:
        return "URL too long";
    default:
        return "Server error";
    }
}

int hp_web_error(hp_html *out, const hp_web *w, int status, const char *what, const char *arg)
{
    out->len = 0;
    if (out->buf) out->buf[0] = '\0';
    hp_web_begin(out, w, status_title(status));
    hp_html_raw(out, "<p>");
    hp_html_text(out, what);
    if (arg) {
        hp_html_raw(out, ": <code>");
        hp_html_text(out, arg);
        hp_html_raw(out, "</code>");
    }
    hp_html_raw(out, "</p>");
    hp_web_end(out);
    return status;
}

void hp_web_object_link(hp_html *out, const hp_web *w, uint32_t obj)
{
    char what[512];
    hp_graph_describe(&w->h.g, obj, what, sizeof what);
    hp_html_fmt(out, "<a href=\"/object?id=0x%" PRIx64 "\">0x%" PRIx64 "</a> ",
                hp_objects_id(&w->h.g.obj, obj), hp_objects_id(&w->h.g.obj, obj));
    hp_html_text(out, what);
}

void hp_web_path(hp_html *out, const hp_web *w, uint32_t obj)
{
    uint32_t *chain;
    size_t len = hp_paths_chain(&w->paths, obj, &chain);
    if (len == 0) hp_html_raw(out, "<p>No path from a GC root.</p>");
    hp_html_raw(out, "<ol class=path>");
    for (size_t i = 0; i < len; i++) {
        char via[300];
        hp_html_raw(out, "<li>");
        if (i == 0) {
            hp_graph_root_kinds(&w->h.g, chain[0], via, sizeof via);
            hp_html_raw(out, "<em>");
            hp_html_text(out, via);
            hp_html_raw(out, "</em> ");
        } else {
            hp_graph_edge_name(&w->h.g, chain[i - 1], chain[i], via, sizeof via);
            hp_html_raw(out, "<code>");
            hp_html_text(out, via);
            hp_html_raw(out, "</code> &rarr; ");
        }
        hp_web_object_link(out, w, chain[i]);
        hp_html_raw(out, "</li>");
    }
    hp_html_raw(out, "</ol>");
    free(chain);
}

uint32_t hp_web_object_arg(const hp_web *w, const char *id)
{
    return id ? hp_find_object(&w->h, id) : HP_NO_OBJECT;
}

int hp_web_page(const hp_web *w, const char *path, const hp_query *q, hp_html *out)
{
    static const struct {
        const char *path;
        int (*page)(const hp_web *, const hp_query *, hp_html *);
    } pages[] = {
        {"/", hp_page_overview},
        {"/histo", hp_page_histo},
        {"/class", hp_page_class},
        {"/object", hp_page_object},
        {"/dominators", hp_page_dominators},
        {"/waste", hp_page_waste},
        {"/suspects", hp_page_suspects},
    };
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        if (strcmp(path, pages[i].path) != 0) continue;
        int status = pages[i].page(w, q, out);
        /* What a page read at random (a class's instances, sizes of many
         * objects) need not stay resident: the next page maps it back. */
        hp_heap_release(&w->h, w->h.store, w->h.store_len);
        hp_release(w->h.ix.f, 0, w->h.ix.f->size);
        return status;
    }
    return hp_web_error(out, w, 404, "No such page", path);
}
