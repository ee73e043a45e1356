/*
 * What the heap commands and `hprof serve` show beyond the dominator tree:
 * shortest paths from the GC roots, the class histogram with retained sizes,
 * waste and suspects. The first analysis of a dump computes them right after
 * the dominators and saves them in the on-disk index (store.h), so a second
 * open only maps or copies them.
 */
#ifndef HPROF_CLI_HEAP_FINDINGS_H
#define HPROF_CLI_HEAP_FINDINGS_H

#include "cli/analyses/histo.h"
#include "cli/heap/heap.h"
#include "cli/heap/paths.h"
#include "cli/heap/suspects.h"
#include "cli/heap/waste.h"

struct hp_findings {
    hp_paths paths; /* over all references, referents included */
    hp_histo histo; /* rows with retained sizes */
    hp_waste waste;
    hp_suspect *suspects; /* largest first; class suspects point into histo.rows */
    size_t nsuspects;
    int borrowed; /* paths.parent lives in the mapped index */
};

/* Computes h's findings from its graph and dominators (in memory or mapped),
 * dropping the mapped pages it has read. With a file behind sp, the parents
 * are written to it and freed. Returns 0, or -1 with err set. */
int hp_findings_build(hp_findings *fx, const hp_heap *h, hp_spill *sp, hp_error *err);
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
 * range; parent (the mapped section) is checked by hp_store_consistent().
 * Returns 0, or -1 if the image is not consistent. */
int hp_findings_unpack(hp_findings *fx, const hp_findings_image *im, uint32_t *parent,
                       const hp_graph *g);

#endif
