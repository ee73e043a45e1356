/* The passes of `hprof verify`, each reporting through the verifier
 * (verifier.h); commands/cmd_verify.c runs them in this order. */
#ifndef HPROF_CLI_VERIFY_H
#define HPROF_CLI_VERIFY_H

#include "cli/analyses/verifier.h"

#include <stddef.h>
#include <stdint.h>

/* Pass A (verify_records.c): every record decodes and heap dump records are
 * grouped properly; counts the records. Returns -1 if the file cannot be
 * walked to its end (nothing after can be checked). */
int hp_verify_records(hp_verifier *v, uint64_t *nrecords);
/* Pass B (verify_records.c, needs v->ix): keys are unique and every ID or
 * serial a record names is defined. */
void hp_verify_references(hp_verifier *v);
/* Heap dump d (verify_heap.c): sub-record syntax, class layouts, and (unless
 * shallow) that every referenced object exists in that dump. */
void hp_verify_dump(hp_verifier *v, size_t d, int shallow);

#endif
