/* What the heap-analysis commands share: one heap dump's graph and dominators. */
#ifndef HPROF_CLI_HEAP_HEAP_H
#define HPROF_CLI_HEAP_HEAP_H

#include <stdio.h>

#include "cli/commands/cli.h"
#include "cli/heap/dominators.h"

typedef struct hp_findings hp_findings; /* findings.h */

/* How much hp_heap_open() builds (HP_HEAP_GRAPH: a build under way). */
enum { HP_HEAP_INDEX, HP_HEAP_GRAPH, HP_HEAP_DOMINATORS };

typedef struct {
    hp_index ix;
    size_t dump; /* 0-based */
    hp_graph g;
    hp_domtree d;
    hp_findings *fx; /* histogram, waste, suspects (with the dominators) */
    int level;       /* what was built */
    void *store;     /* the mapped on-disk index the arrays live in, or NULL */
    size_t store_len;
} hp_heap;

/*
 * Indexes the file and picks heap dump o->dump (default: the last); at
 * `level` HP_HEAP_DOMINATORS also builds its graph, dominator tree and
 * findings (or maps them from the on-disk index, store.h). Returns HP_EXIT_OK, or the exit code
 * after printing one error line to err.
 */
int hp_heap_open(hp_heap *h, const hp_file *f, const hp_opts *o, int level, FILE *err);
void hp_heap_close(hp_heap *h);
/* The build step of hp_heap_open (h->ix and h->dump set): graph and
 * dominators, the large arrays spilled through sp as they are done. */
int hp_heap_build(hp_heap *h, const hp_model *m, hp_spill *sp, hp_error *e);

/* Drops the pages of [p, p + bytes) from memory if they are mapped from the
 * on-disk index (a later read brings them back): scans stay lean. */
void hp_heap_release(const hp_heap *h, const void *p, size_t bytes);

/* Writes s as a JSON string literal (quoted, escaped). */
void hp_json_string(FILE *out, const char *s);

#endif
