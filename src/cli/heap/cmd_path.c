/* `hprof path`: shortest paths from GC roots to an object or a class's largest instances. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/heap.h"
#include "cli/heap/paths.h"
#include "cli/heap/print.h"
#include "cli/heap/targets.h"

static int print_path(const hp_heap *h, const hp_paths *p, uint32_t obj, int first,
                      const hp_opts *o, FILE *out)
{
    char what[512];
    uint32_t *chain;
    size_t len = hp_paths_chain(p, obj, &chain);
    hp_graph_describe(&h->g, obj, what, sizeof what);
    uint64_t id = hp_objects_id(&h->g.obj, obj), shallow = hp_graph_shallow(&h->g, obj);
    uint64_t retained = hp_dom_retained(&h->d, obj);
    if (o->json) {
        fprintf(out, "%s{\"id\":\"0x%" PRIx64 "\",\"class\":", first ? "" : ",", id);
        hp_json_string(out, what);
        fprintf(out, ",\"shallow\":%" PRIu64 ",\"retained\":%" PRIu64 ",\"path\":[", shallow,
                retained);
    } else {
        fprintf(out, "%s0x%016" PRIx64 " %s (shallow %" PRIu64 ", retained %" PRIu64 "):\n",
                first ? "" : "\n", id, what, shallow, retained);
        if (len == 0) fprintf(out, "  no path from a GC root\n");
    }
    hp_print_chain(out, &h->g, chain, len, o->json);
    if (o->json) fputs("]}", out);
    free(chain);
    return 0;
}

int hp_cmd_path(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap h;
    hp_paths p = {0};
    hp_error e = {0};
    uint32_t *targets = NULL;
    size_t n = 0;
    int rc = hp_heap_open(&h, f, o, HP_HEAP_DOMINATORS, err);
    if (rc != HP_EXIT_OK) return rc;
    rc = hp_find_targets(&h, o->target, hp_top(o, 3), &targets, &n, &e);
    if (rc == 0 && n == 0) {
        fprintf(err, "hprof: error: %s: no object or class '%s' in heap dump %zu\n", f->path,
                o->target, h.dump + 1);
        rc = HP_EXIT_NODATA;
    } else if (rc != 0 || hp_paths_build(&p, &h.g, o->exclude_weak, &e) != 0) {
        hp_report(err, f, &e);
        rc = HP_EXIT_MALFORMED;
    } else {
        if (o->json) fputs("{\"paths\":[", out);
        for (size_t i = 0; i < n; i++)
            print_path(&h, &p, targets[i], i == 0, o, out);
        if (o->json) fputs("]}\n", out);
    }
    free(targets);
    hp_paths_free(&p);
    hp_heap_close(&h);
    return rc;
}
