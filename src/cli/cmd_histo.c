/* `hprof histo`: class histogram in the layout of `jmap -histo`. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "histo.h"

static int by_bytes(const void *a, const void *b)
{
    const hp_histo_row *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    /* Stable output for equal rows: order by class ID, then element type. */
    if (x->class_id != y->class_id) return x->class_id < y->class_id ? -1 : 1;
    return (int)x->prim_type - (int)y->prim_type;
}

int hp_cmd_histo(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_index ix;
    hp_histo h;
    hp_error e;
    int rc = HP_EXIT_OK;
    if (hp_index_build(&ix, f, 0, &e) != 0) {
        hp_report(err, f, &e);
        hp_index_free(&ix);
        return HP_EXIT_MALFORMED;
    }
    size_t d = o->dump ? (size_t)o->dump - 1 : ix.ndumps - 1;
    if (ix.ndumps == 0 || d >= ix.ndumps) {
        fprintf(err, "hprof: error: %s: no heap dump %ld (the file has %zu)\n", f->path,
                o->dump ? o->dump : 1, ix.ndumps);
        hp_index_free(&ix);
        return HP_EXIT_NODATA;
    }
    if (hp_histo_build(&h, &ix, d, o->model, &e) != 0) {
        hp_report(err, f, &e);
        rc = HP_EXIT_MALFORMED;
    } else {
        if (h.nrows) qsort(h.rows, h.nrows, sizeof *h.rows, by_bytes);
        fprintf(out, " num     #instances         #bytes  class name\n");
        fprintf(out, "----------------------------------------------\n");
        for (size_t i = 0; i < h.nrows && (o->top == 0 || i < (size_t)o->top); i++) {
            char name[512];
            hp_histo_row_name(&ix, &h.rows[i], name, sizeof name);
            fprintf(out, "%4zu: %13" PRIu64 " %14" PRIu64 "  %s\n", i + 1, h.rows[i].count,
                    h.rows[i].bytes, name);
        }
        fprintf(out, "Total %13" PRIu64 " %14" PRIu64 "\n", h.instances, h.bytes);
    }
    hp_histo_free(&h);
    hp_index_free(&ix);
    return rc;
}
