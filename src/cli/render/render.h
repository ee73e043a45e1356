/* Renderers of profiles: folded stacks, pprof, flame graph pages, diffs. */
#ifndef HPROF_CLI_RENDER_RENDER_H
#define HPROF_CLI_RENDER_RENDER_H

#include <stdio.h>

#include "cli/profile/profile.h"
#include "cli/readers/reader.h"

typedef struct {
    int value;          /* index of the value drawn / counted */
    int threads;        /* one tree per thread */
    const char *title;  /* flame: page title */
    double minwidth;    /* flame: percent of the total below which frames merge into their parent */
    long interval_ms;   /* pprof: CPU SAMPLES period */
    const char *source; /* name of the input, for titles */
    const char *baseline; /* flame --diff: name of the input compared with */
} hp_render_opts;

/* Each returns 0, or -1 with err set (out of memory, write error). */
int hp_render_collapsed(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err);
int hp_render_pprof(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err);
int hp_render_flame(FILE *out, const hp_profile *p, const hp_render_opts *o, hp_error *err);
/* Widths from b, colours from the change of each frame's share from a to b. */
int hp_render_flame_diff(FILE *out, const hp_profile *a, const hp_profile *b,
                         const hp_render_opts *o, hp_error *err);
/* What changed from a to b, by method and by stack (text, or JSON with `json`);
 * names[] are the two inputs' names. Prints nothing when nothing changed. */
int hp_render_diff(FILE *out, const hp_profile *a, const hp_profile *b, const hp_render_opts *o,
                   const char *names[2], int json, hp_error *err);
/* A name as the last cell of a text row, then '\n': control characters
 * (newlines, terminal escapes from a hostile file) become '?'. */
void hp_put_cell(FILE *out, const char *s);
/* Whether a binary file holds heap dumps and no CPU SAMPLES or ALLOC SITES. */
int hp_is_heap_dump_file(const hp_file *f);
/* The class histogram difference of the last heap dumps of two files. */
int hp_render_heap_diff(FILE *out, const hp_file *a, const hp_file *b, int json, hp_error *err);

#endif
