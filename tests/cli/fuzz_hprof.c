/* libFuzzer entry point: every subcommand over one in-memory file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands/cli.h"
#include "cli/heap/findings.h"
#include "cli/heap/store.h"
#include "cli/serve/web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render_pages(const hp_web *w);

/* The on-disk index reader: an index written for this dump, then (for half the
 * inputs) a few bytes flipped where the input says, attached and used: the
 * graph, the tree and the findings, through every page. */
static void index_reader(const hp_file *f, const uint8_t *data, size_t size, FILE *sink)
{
    hp_heap h, t;
    hp_opts o = {.model = hp_model_default(), .no_index = 1};
    if (hp_heap_open(&h, f, &o, HP_HEAP_DOMINATORS, sink) != HP_EXIT_OK) return;
    hp_store_key k = {.size = size, .dump = h.dump, .id_size = f->id_size, .model = "coops"};
    char *image = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&image, &len);
    if (m && hp_store_write(&h, &k, m) == 0 && fclose(m) == 0) {
        for (size_t i = 0; data[0] & 1 && i < 8 && i < size && len; i++)
            image[(data[i] * 2654435761u + i * 40503u) % len] ^= (char)(data[(i + 1) % size] | 1);
        memset(&t, 0, sizeof t);
        t.ix = h.ix;
        t.dump = h.dump;
        if (hp_store_attach(&t, (const uint8_t *)image, len, &k, o.model) == 0) {
            hp_domkids kids;
            hp_error e;
            for (uint32_t i = 0; i < t.g.obj.n; i++) {
                char buf[600];
                hp_graph_describe(&t.g, i, buf, sizeof buf);
                hp_dom_retained(&t.d, i);
                hp_dom_idom(&t.d, i);
                if (t.g.out_start[i] < t.g.out_start[i + 1])
                    hp_graph_edge_name(&t.g, i, HP_EDGE_TARGET(t.g.out[t.g.out_start[i]]), buf,
                                       sizeof buf);
            }
            if (hp_domkids_build(&kids, &t.d, &e) == 0) hp_domkids_free(&kids);
            hp_web w = {t, t.fx, {0}, "fuzz"};
            if (hp_paths_build(&w.paths, &t.g, 0, &e) == 0) render_pages(&w);
            hp_paths_free(&w.paths);
            hp_findings_free(t.fx);
            free(t.fx);
            hp_domtree_free(&t.d);
            hp_graph_free(&t.g);
        }
    } else if (m) {
        fclose(m);
    }
    free(image);
    hp_heap_close(&h);
}

/* Every page of the web UI, on the first and last object and the first class. */
static void render_pages(const hp_web *w)
{
    char first[32] = "0", last[32] = "0", cls[32] = "0";
    if (w->h.g.obj.n) {
        snprintf(first, sizeof first, "%llu", (unsigned long long)hp_objects_id(&w->h.g.obj, 0));
        snprintf(last, sizeof last, "%llu",
                 (unsigned long long)hp_objects_id(&w->h.g.obj, w->h.g.obj.n - 1));
    }
    if (w->h.g.classes.n)
        snprintf(cls, sizeof cls, "%llu", (unsigned long long)w->h.g.classes.v[0].id);
    const hp_query queries[] = {
        {NULL, NULL, NULL}, {first, "int", "count"}, {last, NULL, "shallow"}, {cls, NULL, NULL}};
    static const char *const paths[] = {"/",           "/histo", "/class",   "/object",
                                        "/dominators", "/waste", "/suspects"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
        for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
            hp_html out = {0};
            hp_web_page(w, paths[p], &queries[q], &out);
            hp_html_free(&out);
        }
}

static void web_pages(const hp_file *f, FILE *sink)
{
    hp_web w;
    hp_opts o = {.model = hp_model_default()};
    if (hp_web_open(&w, f, &o, sink) != HP_EXIT_OK) return;
    render_pages(&w);
    hp_web_close(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static int (*const fns[])(const hp_file *, const hp_opts *, FILE *, FILE *) = {
        hp_cmd_verify,  hp_cmd_records, hp_cmd_summary, hp_cmd_histo,     hp_cmd_sites,
        hp_cmd_samples, hp_cmd_threads, hp_cmd_text,    hp_cmd_dominators};
    if (!sink) sink = fopen("/dev/null", "w");
    hp_file f;
    hp_error e;
    if (hp_open_mem(&f, "fuzz", data, size, &e) != 0) return 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        hp_opts o = {.model = hp_model_default(), .max_errors = 5, .heap = 1, .depth = 3};
        fns[i](&f, &o, sink, sink);
    }
    /* The object graph, dominators and retained sizes behind histo --retained. */
    hp_opts o = {.model = hp_model_default(), .retained = 1, .json = 1};
    hp_cmd_histo(&f, &o, sink, sink);
    static const char *const targets[] = {"Foo", "0x10", "int[]"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        hp_opts p = {.model = hp_model_default(), .target = targets[i], .exclude_weak = (int)i & 1};
        hp_cmd_path(&f, &p, sink, sink);
    }
    web_pages(&f, sink);
    hp_opts w = {.model = hp_model_default(), .json = 1};
    hp_cmd_waste(&f, &w, sink, sink);
    hp_cmd_suspects(&f, &w, sink, sink);
    index_reader(&f, data, size, sink);
    return 0;
}
