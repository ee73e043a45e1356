/* `hprof text`: the whole binary file in the ascii java.hprof.txt form. */
#include <inttypes.h>

#include "cli/ascii/sections.h"
#include "cli/commands/cli.h"
#include "format/hprof_format.h"

/* The ascii file header ("JAVA PROFILE 1.0.1, created <date>", then the
 * "--------" separator) minus the agent's prelude text, which is not in the binary. */
static void header(FILE *out, const hp_file *f)
{
    char when[64];
    hp_record_ctime(f, 0, when);
    fprintf(out, HP_ASCII_HEADER "%s\n--------\n\n", when);
}

int hp_cmd_text(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    hp_index ix;
    hp_error e;
    if (hp_index_build(&ix, f, 0, &e) != 0) {
        hp_report(err, f, &e);
        hp_index_free(&ix);
        return HP_EXIT_MALFORMED;
    }
    if (opts->dump && (size_t)opts->dump > ix.ndumps) {
        fprintf(err, "hprof: error: %s: no heap dump %ld (the file has %zu)\n", f->path, opts->dump,
                ix.ndumps);
        hp_index_free(&ix);
        return HP_EXIT_NODATA;
    }
    header(out, f);
    uint64_t pos = f->first_record;
    size_t next_dump = 0;
    int rc = HP_EXIT_OK;
    hp_record r;
    hp_rec o;
    while (rc == HP_EXIT_OK && hp_next_record(f, &pos, &r, &e) == 1) {
        hp_parse_record(f, &r, &o, &e);
        switch (r.tag) {
        case HP_START_THREAD:
        case HP_END_THREAD:
            hp_print_thread(out, &ix, &r, &o);
            break;
        case HP_TRACE:
            hp_print_trace(out, &ix, o.trace.serial);
            break;
        case HP_ALLOC_SITES:
            hp_print_sites(out, &ix, &r, &o);
            break;
        case HP_CPU_SAMPLES:
            hp_print_samples(out, &ix, &r, &o);
            break;
        case HP_HEAP_DUMP:
        case HP_HEAP_DUMP_SEGMENT:
            /* A dump is printed whole where its first record is. */
            if (next_dump < ix.ndumps && ix.dumps[next_dump].records[0] == r.offset) {
                if ((!opts->dump || (size_t)opts->dump == next_dump + 1) &&
                    hp_print_heap(out, &ix, next_dump, opts->model, &e) != 0) {
                    hp_report(err, f, &e);
                    rc = HP_EXIT_MALFORMED;
                }
                next_dump++;
            }
            break;
        default:
            break; /* UTF8, LOAD CLASS, FRAME, ... have no ascii form */
        }
    }
    hp_index_free(&ix);
    return rc;
}
