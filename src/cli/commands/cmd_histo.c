/* `hprof histo`: class histogram in the layout of `jmap -histo`. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/analyses/histo.h"
#include "cli/commands/cli.h"
#include "cli/heap/findings.h"
#include "cli/heap/histo_retained.h"

static int by_bytes(const void *a, const void *b)
{
    const hp_histo_row *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    /* Stable output for equal rows: order by class ID, then element type. */
    if (x->class_id != y->class_id) return x->class_id < y->class_id ? -1 : 1;
    return (int)x->prim_type - (int)y->prim_type;
}

static void print_text(const hp_histo *h, const hp_index *ix, const hp_opts *o, FILE *out)
{
    fprintf(out, " num     #instances         #bytes%s  class name\n",
            o->retained ? "      #retained" : "");
    fprintf(out, "----------------------------------------------%s\n",
            o->retained ? "---------------" : "");
    for (size_t i = 0; i < h->nrows && i < hp_top(o, SIZE_MAX); i++) {
        char name[512];
        hp_histo_row_name(ix, &h->rows[i], name, sizeof name);
        fprintf(out, "%4zu: %13" PRIu64 " %14" PRIu64, i + 1, h->rows[i].count, h->rows[i].bytes);
        if (o->retained) fprintf(out, " %14" PRIu64, h->rows[i].retained);
        fprintf(out, "  %s\n", name);
    }
    fprintf(out, "Total %13" PRIu64 " %14" PRIu64 "\n", h->instances, h->bytes);
}

static void print_json(const hp_histo *h, const hp_index *ix, const hp_opts *o, FILE *out)
{
    fprintf(out, "{\"instances\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"classes\":[", h->instances,
            h->bytes);
    for (size_t i = 0; i < h->nrows && i < hp_top(o, SIZE_MAX); i++) {
        char name[512];
        hp_histo_row_name(ix, &h->rows[i], name, sizeof name);
        fprintf(out, "%s{\"class\":", i ? "," : "");
        hp_json_string(out, name);
        fprintf(out, ",\"instances\":%" PRIu64 ",\"bytes\":%" PRIu64, h->rows[i].count,
                h->rows[i].bytes);
        if (o->retained) fprintf(out, ",\"retained\":%" PRIu64, h->rows[i].retained);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

int hp_cmd_histo(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_heap hh;
    hp_histo h;
    hp_error e;
    int rc = hp_heap_open(&hh, f, o, o->retained ? HP_HEAP_DOMINATORS : HP_HEAP_INDEX, err);
    if (rc != HP_EXIT_OK) return rc;
    /* With --retained, the histogram the dump's findings hold (from its graph). */
    if (o->retained ? hp_histo_copy(&h, &hh.fx->histo, &e) != 0
                    : hp_histo_build(&h, &hh.ix, hh.dump, o->model, &e) != 0) {
        hp_report(err, f, &e);
        rc = HP_EXIT_MALFORMED;
    } else {
        if (h.nrows) qsort(h.rows, h.nrows, sizeof *h.rows, by_bytes);
        if (o->json)
            print_json(&h, &hh.ix, o, out);
        else
            print_text(&h, &hh.ix, o, out);
    }
    hp_histo_free(&h);
    hp_heap_close(&hh);
    return rc;
}
