#include <inttypes.h>

#include "cli/commands/cli.h"

void hp_report(FILE *err, const hp_file *f, const hp_error *e)
{
    fprintf(err, "hprof: error: %s: %s at offset %" PRIu64 "\n", f->path, e->what, e->offset);
}
