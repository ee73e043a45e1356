/* `hprof waste`: memory a different representation would save, with samples and their paths. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/heap/findings.h"
#include "cli/heap/jstring.h"
#include "cli/heap/paths.h"
#include "cli/heap/print.h"
#include "cli/heap/waste.h"

static void print_sample(FILE *out, const hp_heap *h, const hp_paths *p, const hp_waste_kind *k,
                         int json)
{
    char what[512];
    uint32_t *chain;
    size_t len = hp_paths_chain(p, k->sample, &chain);
    hp_graph_describe(&h->g, k->sample, what, sizeof what);
    if (json) {
        fprintf(out, ",\"sample\":{\"id\":\"0x%" PRIx64 "\",\"class\":",
                hp_objects_id(&h->g.obj, k->sample));
        hp_json_string(out, what);
        fprintf(out, ",\"bytes\":%" PRIu64 ",\"path\":[", k->sample_bytes);
        hp_print_chain(out, &h->g, chain, len, 1);
        fputs("]}", out);
    } else {
        fprintf(out, "  sample 0x%016" PRIx64 " %s, %" PRIu64 " bytes:\n",
                hp_objects_id(&h->g.obj, k->sample), what, k->sample_bytes);
        hp_print_chain(out, &h->g, chain, len, 0);
    }
    free(chain);
}

static void print_dups(FILE *out, const hp_heap *h, const hp_waste *w, size_t top, int json)
{
    fputs(json ? ",\"duplicate_strings\":["
               : "\nDuplicate strings, most waste first:\n"
                 "         bytes     copies  value\n",
          out);
    for (size_t i = 0; i < w->ndups && i < top; i++) {
        const hp_dup_string *d = &w->dups[i];
        if (json)
            fprintf(out, "%s{\"bytes\":%" PRIu64 ",\"copies\":%" PRIu64 ",\"value\":", i ? "," : "",
                    d->bytes, d->count);
        else
            fprintf(out, "%14" PRIu64 " %10" PRIu64 "  ", d->bytes, d->count);
        hp_jstring_print(out, &h->g, d->string, 80);
        fputs(json ? "}" : "\n", out);
    }
    if (json) fputc(']', out);
}

static void report(FILE *out, const hp_heap *h, const hp_paths *p, const hp_waste *w,
                   const hp_opts *o)
{
    uint64_t total = 0;
    for (int k = 0; k < HP_WASTE_KINDS; k++)
        total += w->kinds[k].bytes;
    uint64_t reachable = h->d.retained[0];
    if (o->json)
        fprintf(out, "{\"bytes\":%" PRIu64 ",\"reachable_bytes\":%" PRIu64 ",\"kinds\":[", total,
                reachable);
    else
        fprintf(out,
                "Waste in heap dump %zu: %" PRIu64 " bytes could be saved, %.1f%% of %" PRIu64
                " reachable bytes\n",
                h->dump + 1, total, reachable ? 100.0 * (double)total / (double)reachable : 0.0,
                reachable);
    for (int k = 0, first = 1; k < HP_WASTE_KINDS; k++) {
        const hp_waste_kind *wk = &w->kinds[k];
        if (o->json) {
            fprintf(out, "%s{\"kind\":", first ? "" : ",");
            hp_json_string(out, hp_waste_kind_name(k));
            fprintf(out, ",\"bytes\":%" PRIu64 ",\"objects\":%" PRIu64, wk->bytes, wk->count);
        } else {
            fprintf(out, "\n%14" PRIu64 " bytes in %" PRIu64 " objects: %s\n", wk->bytes, wk->count,
                    hp_waste_kind_name(k));
        }
        first = 0;
        if (wk->sample != HP_NO_OBJECT) print_sample(out, h, p, wk, o->json);
        if (o->json) fputc('}', out);
    }
    if (o->json) fputc(']', out);
    print_dups(out, h, w, hp_top(o, 10), o->json);
    if (o->json) fputs("}\n", out);
}

int hp_cmd_waste(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap h;
    hp_paths p = {0};
    hp_error e = {0};
    int rc = hp_heap_open(&h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    if (hp_paths_build(&p, &h.g, 0, &e) != 0) {
        hp_report(err, f, &e);
        rc = HP_EXIT_MALFORMED;
    } else {
        report(out, &h, &p, &h.fx->waste, o);
    }
    hp_paths_free(&p);
    hp_heap_close(&h);
    return rc;
}
