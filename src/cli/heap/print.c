/* Printing what the heap commands share: paths from the roots. */
#include "cli/heap/print.h"

#include <inttypes.h>

#include "cli/heap/heap.h"
#include "cli/heap/paths.h"

static void print_step(FILE *out, const hp_graph *g, const uint32_t *chain, size_t i, int json)
{
    char what[512], via[300], roots[300];
    hp_graph_describe(g, chain[i], what, sizeof what);
    uint64_t id = hp_objects_id(&g->obj, chain[i]);
    if (i == 0)
        hp_graph_root_kinds(g, chain[0], roots, sizeof roots);
    else
        hp_graph_edge_name(g, chain[i - 1], chain[i], via, sizeof via);
    if (!json) {
        if (i == 0)
            fprintf(out, "  0x%016" PRIx64 " %s  (%s)\n", id, what, roots);
        else
            fprintf(out, "  %s -> 0x%016" PRIx64 " %s\n", via, id, what);
        return;
    }
    fprintf(out, "%s{\"id\":\"0x%" PRIx64 "\",\"class\":", i ? "," : "", id);
    hp_json_string(out, what);
    fprintf(out, i ? ",\"via\":" : ",\"roots\":");
    hp_json_string(out, i ? via : roots);
    fputc('}', out);
}

void hp_print_chain(FILE *out, const hp_graph *g, const uint32_t *chain, size_t len, int json)
{
    for (size_t i = 0; i < len; i++) {
        if (i == HP_PATH_ENDS && len > 2 * HP_PATH_ENDS) { /* a long list: its ends suffice */
            size_t skipped = len - 2 * HP_PATH_ENDS;
            if (json)
                fprintf(out, ",{\"elided\":%zu}", skipped);
            else
                fprintf(out, "  ... %zu more references ...\n", skipped);
            i += skipped - 1;
            continue;
        }
        print_step(out, g, chain, i, json);
    }
}
