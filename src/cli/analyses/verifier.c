/* How `hprof verify` reports a problem: counted, and printed up to a limit. */
#include "cli/analyses/verifier.h"

#include <inttypes.h>
#include <stdarg.h>

static void vreport(hp_verifier *v, uint64_t offset, const char *fmt, va_list ap)
{
    if (v->max_errors < 0 || v->nerrors < (uint64_t)v->max_errors) {
        char what[300];
        vsnprintf(what, sizeof what, fmt, ap);
        fprintf(v->err, "hprof: error: %s: %s at offset %" PRIu64 "\n", v->f->path, what, offset);
    }
    v->nerrors++;
}

void hp_verr(hp_verifier *v, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, offset, fmt, ap);
    va_end(ap);
}

void hp_vdangling(hp_verifier *v, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (v->strict)
        vreport(v, offset, fmt, ap);
    else if (v->nwarnings++ == 0) /* only counted; --strict lists them */
        v->first_dangling = offset;
    va_end(ap);
}
