/* `hprof summary`: header, record counts, threads and per-dump totals. */
#include <inttypes.h>
#include <time.h>

#include "cli/analyses/histo.h"
#include "cli/commands/cli.h"

/* Formats a ms time stamp as UTC ISO 8601. */
static void utc(uint64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, cap, "?");
}

static uint64_t dump_bytes(const hp_index *ix, const hp_dump *d)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < d->nrecords; i++) {
        hp_record r;
        hp_rec o;
        hp_index_record(ix, d->records[i], &r, &o);
        sum += r.length;
    }
    return sum;
}

int hp_cmd_summary(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_index ix;
    hp_error e;
    char when[64];
    if (hp_index_build(&ix, f, 0, &e) != 0) {
        hp_report(err, f, &e);
        hp_index_free(&ix);
        return HP_EXIT_MALFORMED;
    }
    utc(f->timestamp_ms, when, sizeof when);
    uint64_t total = 0;
    for (int t = 0; t < 256; t++)
        total += ix.counts[t];
    fprintf(out, "file:       %s (%" PRIu64 " bytes)\n", f->path, f->size);
    fprintf(out, "format:     %s, ID size %u\n", f->version, f->id_size);
    fprintf(out, "created:    %s.%03u UTC (%" PRIu64 " ms)\n", when,
            (unsigned)(f->timestamp_ms % 1000), f->timestamp_ms);
    fprintf(out, "records:    %" PRIu64 "\n", total);
    for (int t = 0; t < 256; t++)
        if (ix.counts[t])
            fprintf(out, "  %-20s %12" PRIu64 "\n", hp_tag_name((uint8_t)t), ix.counts[t]);
    fprintf(out, "threads:    %" PRIu64 " started, %" PRIu64 " ended\n", ix.counts[HP_START_THREAD],
            ix.counts[HP_END_THREAD]);
    fprintf(out, "heap dumps: %zu\n", ix.ndumps);
    int rc = HP_EXIT_OK;
    for (size_t d = 0; d < ix.ndumps && rc == HP_EXIT_OK; d++) {
        hp_histo h;
        if (hp_histo_build(&h, &ix, d, o->model, &e) != 0) {
            hp_report(err, f, &e);
            rc = HP_EXIT_MALFORMED;
        } else {
            fprintf(out,
                    "  dump %zu at offset %" PRIu64 ": %zu record%s, %" PRIu64 " bytes\n"
                    "    objects %" PRIu64 " (instances %" PRIu64 ", object arrays %" PRIu64
                    ", primitive arrays %" PRIu64 "), shallow bytes %" PRIu64 " (model %s)\n"
                    "    classes %" PRIu64 ", roots %" PRIu64 " (thread objects %" PRIu64 ")\n",
                    d + 1, ix.dumps[d].records[0], ix.dumps[d].nrecords,
                    ix.dumps[d].nrecords == 1 ? "" : "s", dump_bytes(&ix, &ix.dumps[d]),
                    h.instances, h.plain, h.obj_arrays, h.prim_arrays, h.bytes, o->model->name,
                    h.classes, h.roots, h.thread_roots);
        }
        hp_histo_free(&h);
    }
    hp_index_free(&ix);
    return rc;
}
