/* `hprof suspects`: what retains most of the heap, its path and what it accumulates. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/heap/findings.h"
#include "cli/heap/paths.h"
#include "cli/heap/print.h"
#include "cli/heap/suspects.h"

typedef struct {
    const hp_heap *h;
    const hp_paths *paths;
    const hp_opts *o;
    FILE *out;
} ctx;

static int accumulates(const ctx *c, uint32_t obj, hp_error *err)
{
    hp_accumulated *v;
    size_t n;
    if (hp_suspect_accumulates(c->h, obj, &v, &n, err) != 0) return -1;
    fputs(c->o->json ? ",\"accumulates\":[" : "   dominates directly, by class:\n", c->out);
    for (size_t i = 0; i < n && i < 5; i++) {
        char name[512];
        hp_accumulated_name(c->h, v[i].key, name, sizeof name);
        if (c->o->json) {
            fprintf(c->out, "%s{\"class\":", i ? "," : "");
            hp_json_string(c->out, name);
            fprintf(c->out, ",\"objects\":%" PRIu64 ",\"retained\":%" PRIu64 "}", v[i].count,
                    v[i].retained);
        } else {
            fprintf(c->out, "   %14" PRIu64 " bytes in %" PRIu64 " %s\n", v[i].retained, v[i].count,
                    name);
        }
    }
    if (c->o->json) fputc(']', c->out);
    free(v);
    return 0;
}

static int print_suspect(const ctx *c, const hp_suspect *s, size_t i, hp_error *err)
{
    char what[512];
    uint64_t total = c->h->d.retained[0];
    double pct = total ? 100.0 * (double)s->retained / (double)total : 0;
    hp_graph_describe(&c->h->g, s->object, what, sizeof what);
    uint64_t id = hp_objects_id(&c->h->g.obj, s->object);
    if (c->o->json) {
        fprintf(c->out, "%s{\"kind\":\"%s\",\"retained\":%" PRIu64 ",\"id\":\"0x%" PRIx64 "\"",
                i ? "," : "", s->row ? "class" : "object", s->retained, id);
        fputs(",\"class\":", c->out);
        hp_json_string(c->out, what);
        if (s->row) fprintf(c->out, ",\"instances\":%" PRIu64, s->row->count);
    } else if (s->row) {
        fprintf(c->out,
                "\n%zu. %" PRIu64 " instances of %s retain %" PRIu64 " bytes (%.1f%%); the "
                "largest, 0x%016" PRIx64 ", %" PRIu64 "\n",
                i + 1, s->row->count, what, s->retained, pct, id,
                hp_dom_retained(&c->h->d, s->object));
    } else {
        fprintf(c->out, "\n%zu. 0x%016" PRIx64 " %s retains %" PRIu64 " bytes (%.1f%%)\n", i + 1,
                id, what, s->retained, pct);
    }
    if (!s->row) {
        char where[512];
        uint64_t at = hp_objects_id(&c->h->g.obj, s->accumulation);
        hp_graph_describe(&c->h->g, s->accumulation, where, sizeof where);
        if (c->o->json) {
            fprintf(c->out, ",\"accumulation\":{\"id\":\"0x%" PRIx64 "\",\"class\":", at);
            hp_json_string(c->out, where);
            fprintf(c->out, ",\"retained\":%" PRIu64 "}",
                    hp_dom_retained(&c->h->d, s->accumulation));
        } else {
            fprintf(c->out, "   accumulates in 0x%016" PRIx64 " %s, %" PRIu64 " bytes, which\n", at,
                    where, hp_dom_retained(&c->h->d, s->accumulation));
        }
        if (accumulates(c, s->accumulation, err) != 0) return -1;
    }
    uint32_t *chain;
    size_t len = hp_paths_chain(c->paths, s->object, &chain);
    fputs(c->o->json ? ",\"path\":[" : "   path from a GC root:\n", c->out);
    hp_print_chain(c->out, &c->h->g, chain, len, c->o->json);
    fputs(c->o->json ? "]}" : "", c->out);
    free(chain);
    return 0;
}

static int report(const ctx *c, hp_error *err)
{
    const hp_suspect *v = c->h->fx->suspects;
    size_t n = c->h->fx->nsuspects, top = hp_top(c->o, 5);
    if (c->o->json)
        fprintf(c->out, "{\"reachable_bytes\":%" PRIu64 ",\"suspects\":[", c->h->d.retained[0]);
    else
        fprintf(c->out,
                "Suspects in heap dump %zu: objects and classes retaining 10%% or more of the "
                "%" PRIu64 " reachable bytes%s\n",
                c->h->dump + 1, c->h->d.retained[0], n ? "" : ": none");
    int rc = 0;
    for (size_t i = 0; i < n && i < top && rc == 0; i++)
        rc = print_suspect(c, &v[i], i, err);
    if (c->o->json) fputs("]}\n", c->out);
    return rc;
}

int hp_cmd_suspects(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap h;
    hp_paths p = {0};
    hp_error e = {0};
    int rc = hp_heap_open(&h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    ctx c = {&h, &p, o, out};
    if (hp_paths_build(&p, &h.g, 0, &e) != 0 || report(&c, &e) != 0) {
        hp_report(err, f, &e);
        rc = HP_EXIT_MALFORMED;
    }
    hp_paths_free(&p);
    hp_heap_close(&h);
    return rc;
}
