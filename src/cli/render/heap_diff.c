/*
 * `hprof diff A B` on two heap dumps: the class histogram of each file's last
 * heap dump, matched by class name (IDs differ between dumps), as the objects
 * and bytes each class gained or lost, largest change of bytes first.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analyses/histo.h"
#include "cli/heap/heap.h"
#include "cli/profile/profile.h"
#include "cli/render/render.h"

typedef struct {
    uint64_t count[2], bytes[2];
} class_row;

typedef struct {
    hp_profile names; /* class names; a row per string id */
    class_row *rows;
    uint32_t cap;
    uint64_t count[2], bytes[2];
} histo_diff;

/* Adds the last heap dump of f into side c of the rows. */
static int add_dump(histo_diff *d, const hp_file *f, int c, hp_error *err)
{
    hp_index ix;
    hp_histo h;
    if (hp_index_build(&ix, f, 0, err)) {
        hp_index_free(&ix);
        return -1;
    }
    if (ix.ndumps == 0) {
        hp_index_free(&ix);
        return hp_fail(err, 0, "%s has no heap dump", f->path);
    }
    int rc = hp_histo_build(&h, &ix, ix.ndumps - 1, hp_model_default(), err);
    for (size_t i = 0; rc == 0 && i < h.nrows; i++) {
        char name[1024];
        hp_histo_row_name(&ix, &h.rows[i], name, sizeof name);
        uint32_t id = hp_profile_string(&d->names, name, strlen(name));
        if (id != UINT32_MAX && id >= d->cap) {
            uint32_t cap = d->names.str_cap;
            class_row *r = realloc(d->rows, cap * sizeof *r);
            if (r) memset(r + d->cap, 0, (cap - d->cap) * sizeof *r);
            d->rows = r ? r : d->rows;
            d->cap = r ? cap : d->cap;
        }
        if (id == UINT32_MAX || id >= d->cap) {
            rc = hp_fail(err, 0, "out of memory");
            break;
        }
        d->rows[id].count[c] += h.rows[i].count;
        d->rows[id].bytes[c] += h.rows[i].bytes;
    }
    d->count[c] = h.instances;
    d->bytes[c] = h.bytes;
    hp_histo_free(&h);
    hp_index_free(&ix);
    return rc;
}

int hp_is_heap_dump_file(const hp_file *f)
{
    hp_index ix;
    hp_error e;
    int heap = hp_index_build(&ix, f, 0, &e) == 0 && ix.ndumps > 0 &&
               ix.last_samples == UINT64_MAX && ix.last_sites == UINT64_MAX;
    hp_index_free(&ix);
    return heap;
}

static int64_t delta(const uint64_t v[2])
{
    return (int64_t)(v[1] - v[0]);
}

static int by_bytes_change(const void *a, const void *b, void *ctx)
{
    const histo_diff *d = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint64_t dx = (uint64_t)llabs(delta(d->rows[i].bytes));
    uint64_t dy = (uint64_t)llabs(delta(d->rows[j].bytes));
    if (dx != dy) return dx < dy ? 1 : -1;
    return strcmp(hp_profile_str(&d->names, i), hp_profile_str(&d->names, j));
}

static void print(FILE *out, const histo_diff *d, const uint32_t *order, uint32_t n,
                  const char *names[2], int json)
{
    if (json) {
        for (int c = 0; c < 2; c++) {
            fprintf(out, c ? ",\"b\":{\"file\":" : "{\"a\":{\"file\":");
            hp_json_string(out, names[c]);
            fprintf(out, ",\"instances\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", d->count[c],
                    d->bytes[c]);
        }
        fputs(",\"classes\":[", out);
    } else if (n) {
        fprintf(out,
                "class histogram of the last heap dump: A = %s (%" PRIu64 " objects, %" PRIu64
                " bytes), B = %s (%" PRIu64 " objects, %" PRIu64 " bytes)\n\n"
                "    objects        bytes  class (B - A)\n",
                names[0], d->count[0], d->bytes[0], names[1], d->count[1], d->bytes[1]);
    }
    for (uint32_t k = 0; k < n; k++) {
        const class_row *r = &d->rows[order[k]];
        const char *name = hp_profile_str(&d->names, order[k]);
        if (!json) {
            fprintf(out, "%+11" PRId64 " %+12" PRId64 "  ", delta(r->count), delta(r->bytes));
            hp_put_cell(out, name);
            continue;
        }
        fputs(k ? ",{\"class\":" : "{\"class\":", out);
        hp_json_string(out, name);
        fprintf(out,
                ",\"instances_a\":%" PRIu64 ",\"instances_b\":%" PRIu64 ",\"bytes_a\":%" PRIu64
                ",\"bytes_b\":%" PRIu64 "}",
                r->count[0], r->count[1], r->bytes[0], r->bytes[1]);
    }
    if (json) fputs("]}\n", out);
}

int hp_render_heap_diff(FILE *out, const hp_file *a, const hp_file *b, int json, hp_error *err)
{
    histo_diff d = {0};
    hp_profile_init(&d.names, HP_PK_SITES, HP_PFMT_BINARY);
    int rc = add_dump(&d, a, 0, err);
    if (rc == 0) rc = add_dump(&d, b, 1, err);
    uint32_t *order = rc == 0 ? malloc((d.names.nstrings + 1) * sizeof *order) : NULL;
    uint32_t n = 0;
    if (rc == 0 && !order) rc = hp_fail(err, 0, "out of memory");
    for (uint32_t i = 1; order && i < d.names.nstrings; i++) /* string 0 is "" */
        if (d.rows[i].count[0] != d.rows[i].count[1] || d.rows[i].bytes[0] != d.rows[i].bytes[1])
            order[n++] = i;
    if (rc == 0) {
        qsort_r(order, n, sizeof *order, by_bytes_change, &d);
        const char *names[2] = {a->path, b->path};
        print(out, &d, order, n, names, json);
    }
    free(order);
    free(d.rows);
    hp_profile_free(&d.names);
    return rc;
}
