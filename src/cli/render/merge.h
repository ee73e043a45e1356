/*
 * `hprof merge`: one profile from many. Every kind the inputs have is merged:
 * strings, frames and stacks are interned again (so traces and frames are
 * deduplicated and renumbered), threads are matched by name and rank (see
 * merge.c), values summed.
 * The result is written in the first input's format.
 */
#ifndef HPROF_CLI_RENDER_MERGE_H
#define HPROF_CLI_RENDER_MERGE_H

#include <stdio.h>

#include "cli/profile/load.h"

/* Inputs must have the same kinds (else an error naming them). 0 or -1. */
int hp_merge(hp_profile_set *out, const hp_profile_set *in, int n, const char *const *names,
             hp_error *err);

/* The trace serial writers give a stack: 300001 upwards, kind after kind. */
#define HP_MERGE_FIRST_TRACE 300001u
uint32_t hp_merge_trace(const hp_profile_set *set, int kind, uint32_t stack);
/* Whether a stack is written as a row (not the "[below cutoff]" remainder). */
int hp_merge_is_row(const hp_profile *p, const hp_pstack *st);
/* The stacks written as rows, largest value first (malloc'ed; NULL when out of memory). */
uint32_t *hp_merge_rows(const hp_profile *p, int value, uint32_t *n);

int hp_write_ascii(FILE *out, const hp_profile_set *set, hp_error *err);
int hp_write_binary(FILE *out, const hp_profile_set *set, hp_error *err);

#endif
