/* `hprof verify`: the record passes, then every heap dump, then one line. */
#include "cli/analyses/verify.h"
#include "cli/commands/cli.h"

#include <inttypes.h>

int hp_cmd_verify(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    hp_verifier v = {.f = f, .err = err, .max_errors = opts->max_errors, .strict = opts->strict};
    uint64_t nrecords = 0;
    size_t ndumps = 0;
    hp_index ix;
    hp_error e;
    if (hp_verify_records(&v, &nrecords) == 0) {
        if (hp_index_build(&ix, f, 1, &e) != 0) {
            hp_verr(&v, e.offset, "%s", e.what);
        } else {
            v.ix = &ix;
            hp_verify_references(&v);
            for (size_t d = 0; d < ix.ndumps; d++)
                hp_verify_dump(&v, d, opts->shallow);
            ndumps = ix.ndumps;
            hp_index_free(&ix);
        }
    }
    if (v.nerrors) {
        fprintf(err, "hprof: %s: FAILED: %" PRIu64 " error%s\n", f->path, v.nerrors,
                v.nerrors == 1 ? "" : "s");
        return HP_EXIT_MALFORMED;
    }
    fprintf(out,
            "%s: OK: %s, ID size %u, %" PRIu64 " record%s, %zu heap dump%s, %" PRIu64
            " object%s, %" PRIu64 " dangling reference%s",
            f->path, f->version, f->id_size, nrecords, nrecords == 1 ? "" : "s", ndumps,
            ndumps == 1 ? "" : "s", v.objects, v.objects == 1 ? "" : "s", v.nwarnings,
            v.nwarnings == 1 ? "" : "s");
    if (v.nwarnings)
        fprintf(out, " (first at offset %" PRIu64 "; --strict lists them)", v.first_dangling);
    fputc('\n', out);
    return HP_EXIT_OK;
}
