/* Printing what the heap commands share. */
#ifndef HPROF_CLI_HEAP_PRINT_H
#define HPROF_CLI_HEAP_PRINT_H

#include <stdio.h>

#include "cli/heap/graph.h"

/* Paths longer than twice this show only their first and last references. */
#define HP_PATH_ENDS 20

/* A path from a GC root (chain[0], with its root kinds) to chain[len-1], one
 * reference per line ("  field -> 0x... Class"), or as JSON array elements
 * {"id", "class", "roots"|"via"}; the middle of a long path is one line
 * "... N more references ..." or {"elided": N}. */
void hp_print_chain(FILE *out, const hp_graph *g, const uint32_t *chain, size_t len, int json);

#endif
