/* What the heap-analysis commands share: one heap dump's graph and dominators. */
#ifndef HPROF_CLI_HEAP_HEAP_H
#define HPROF_CLI_HEAP_HEAP_H

#include <stdio.h>

#include "cli.h"
#include "heap/dominators.h"

/* How much hp_heap_open() builds. */
enum { HP_HEAP_INDEX, HP_HEAP_GRAPH, HP_HEAP_DOMINATORS };

typedef struct {
    hp_index ix;
    size_t dump; /* 0-based */
    hp_graph g;
    hp_domtree d;
    int level;   /* what was built */
    void *store; /* the mapped on-disk index the arrays live in, or NULL */
    size_t store_len;
} hp_heap;

/*
 * Indexes the file and picks heap dump o->dump (default: the last); at
 * `level` HP_HEAP_GRAPH also builds its graph, at HP_HEAP_DOMINATORS its
 * dominator tree too. Returns HP_EXIT_OK, or the exit code after printing one
 * error line to err.
 */
int hp_heap_open(hp_heap *h, const hp_file *f, const hp_opts *o, int level, FILE *err);
void hp_heap_close(hp_heap *h);

/* Writes s as a JSON string literal (quoted, escaped). */
void hp_json_string(FILE *out, const char *s);

#endif
