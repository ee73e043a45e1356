/* The state of one `hprof verify` run and how its passes report problems
 * (verifier.c); the passes are in verify.h. */
#ifndef HPROF_CLI_VERIFIER_H
#define HPROF_CLI_VERIFIER_H

#include "cli/readers/index.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
    const hp_file *f;
    const hp_index *ix;
    FILE *err;
    uint64_t nerrors, nwarnings;
    uint64_t first_dangling; /* offset of the first dangling reference */
    long max_errors;
    int strict;       /* dangling object references are errors, not warnings */
    uint64_t objects; /* dumped objects over all heap dumps */
} hp_verifier;

/* Reports one problem (printing only the first max_errors). */
void hp_verr(hp_verifier *v, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports a reference to an object missing from its heap dump: a warning,
 * since the JVM's own dumps have them (e.g. CDS archived-object arrays),
 * or an error with --strict. */
void hp_vdangling(hp_verifier *v, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
