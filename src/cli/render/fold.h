/*
 * Stacks by function: frames that differ only in line, source or signature
 * become one frame per (name, kind), and with `threads` each stack ends in a
 * "[thread NAME]" root frame. Two profiles can be folded into one (channel
 * 0 and 1 of the values), so that a diff compares names, not ids.
 */
#ifndef HPROF_CLI_RENDER_FOLD_H
#define HPROF_CLI_RENDER_FOLD_H

#include "cli/profile/profile.h"

typedef struct {
    hp_profile p;  /* frames by name and kind; stacks leaf first, root frame last */
    int32_t *line; /* per frame of p: the line all its frames had; 0 none; -1 several */
    uint32_t line_cap;
} hp_folded;

void hp_fold_init(hp_folded *f, int kind);
void hp_fold_free(hp_folded *f);
/* Adds value `value` of every stack of `in` to channel 0 or 1 (zeros are
 * skipped). Returns 0, or -1 when out of memory. */
int hp_fold_add(hp_folded *f, const hp_profile *in, int value, int channel, int threads);

#endif
