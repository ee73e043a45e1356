/*
 * What the heap commands and `hprof serve` show beyond the dominator tree:
 * the class histogram with retained sizes, waste and suspects. The first
 * analysis of a dump computes them right after the dominators and saves them
 * in the on-disk index (store.h), so a second open only copies them.
 * Shortest paths are not saved: a BFS (paths.h) costs a second open less
 * than the first open would pay to write its parents.
 */
#ifndef HPROF_CLI_HEAP_FINDINGS_H
#define HPROF_CLI_HEAP_FINDINGS_H

#include "cli/analyses/histo.h"
#include "cli/heap/heap.h"
#include "cli/heap/suspects.h"
#include "cli/heap/waste.h"

struct hp_findings {
    hp_histo histo; /* rows with retained sizes */
    hp_waste waste;
    hp_suspect *suspects; /* largest first; class suspects point into histo.rows */
    size_t nsuspects;
};

/* The findings into fx (zeroed), from h's graph and dominators, in memory or
 * mapped (their pages dropped once read); 0, or -1 with err set. */
int hp_findings_build(hp_findings *fx, const hp_heap *h, hp_error *err);
void hp_findings_free(hp_findings *fx);

/* The findings as flat little arrays of uint64 (findings_io.c): what the index stores. */
typedef struct {
    uint64_t *histo, *waste, *dups, *suspects;
    uint64_t nrows, ndups, nsuspects;
} hp_findings_image;

enum {
    HP_HISTO_WORDS = 5,                      /* class id, prim type, count, bytes, retained */
    HP_WASTE_WORDS = 4 * HP_WASTE_KINDS + 1, /* per kind: bytes, count, sample, its bytes */
    HP_DUP_WORDS = 3,                        /* string, copies, bytes */
    HP_SUSPECT_WORDS = 4,                    /* object, accumulation, row + 1, retained */
};

int hp_findings_pack(const hp_findings *fx, hp_findings_image *im);
void hp_findings_image_free(hp_findings_image *im);
/* Copies an image into fx, checking every object and row it names is in
 * range; 0, or -1 if the image is not consistent. */
int hp_findings_unpack(hp_findings *fx, const hp_findings_image *im, const hp_graph *g);

#endif
