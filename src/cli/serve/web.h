/*
 * The pages of `hprof serve`, independent of the HTTP server: the dump is
 * opened with its findings (from the on-disk index after the first time) and
 * its shortest paths from the GC roots, then each request only reads that state, looking up what
 * one page needs (referrers, dominated objects, a class's instances) by a scan (heap/lookup.h), so
 * requests cannot change the state.
 */
#ifndef HPROF_CLI_SERVE_WEB_H
#define HPROF_CLI_SERVE_WEB_H

#include "cli/heap/findings.h"
#include "cli/heap/heap.h"
#include "cli/heap/paths.h"
#include "cli/serve/html.h"

typedef struct {
    hp_heap h;
    const hp_findings *fx; /* h's: histogram, waste, suspects */
    hp_paths paths;        /* all references, referents included */
    const char *name;      /* the dump's path, shown in titles */
} hp_web;

/* Query parameters a page may use; NULL when absent. */
typedef struct {
    const char *id, *prim, *sort;
} hp_query;

/* Returns HP_EXIT_OK or an exit code after printing an error to err. */
int hp_web_open(hp_web *w, const hp_file *f, const hp_opts *o, FILE *err);
void hp_web_close(hp_web *w);

/* Renders the page for `path` into out; returns the HTTP status (200, 404, ...). */
int hp_web_page(const hp_web *w, const char *path, const hp_query *q, hp_html *out);

/* Pieces the pages share (web.c). */
void hp_web_begin(hp_html *out, const hp_web *w, const char *title);
void hp_web_end(hp_html *out);
int hp_web_error(hp_html *out, const hp_web *w, int status, const char *what, const char *arg);
/* A link to an object's page, showing its ID and class. */
void hp_web_object_link(hp_html *out, const hp_web *w, uint32_t obj);
/* The shortest path from a GC root to obj: root kinds, then each reference. */
void hp_web_path(hp_html *out, const hp_web *w, uint32_t obj);
/* The object an "id" parameter names, or HP_NO_OBJECT. */
uint32_t hp_web_object_arg(const hp_web *w, const char *id);

int hp_page_overview(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_histo(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_class(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_object(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_dominators(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_waste(const hp_web *w, const hp_query *q, hp_html *out);
int hp_page_suspects(const hp_web *w, const hp_query *q, hp_html *out);

#endif
