/* Shortest reference paths from the GC roots (breadth-first over the graph). */
#ifndef HPROF_CLI_HEAP_PATHS_H
#define HPROF_CLI_HEAP_PATHS_H

#include "cli/heap/graph.h"

typedef struct {
    uint32_t *parent; /* per object: previous object on a shortest path; itself for a
                         GC root; HP_NO_OBJECT if no path */
    uint32_t n;
} hp_paths;

/* With exclude_weak, referents of weak/soft/phantom/finalizer references are not followed. */
int hp_paths_build(hp_paths *p, const hp_graph *g, int exclude_weak, hp_error *err);
void hp_paths_free(hp_paths *p);
/* Writes the path root .. obj into *chain (malloc'ed); returns its length, 0 if none. */
size_t hp_paths_chain(const hp_paths *p, uint32_t obj, uint32_t **chain);

/*
 * Names the reference from object `from` to object `to`: "name" for an
 * instance field, "static name" for a static field, "[i]" for an array
 * element; "?" if there is none. Field names are dump strings: escape them.
 */
void hp_graph_edge_name(const hp_graph *g, uint32_t from, uint32_t to, char *buf, size_t cap);
/* Root kinds of obj, comma separated ("ROOT JNI GLOBAL, ROOT STICKY CLASS"); "" if none. */
void hp_graph_root_kinds(const hp_graph *g, uint32_t obj, char *buf, size_t cap);
/* "java.util.HashMap" or, for a class object, "class java.util.HashMap". */
void hp_graph_describe(const hp_graph *g, uint32_t obj, char *buf, size_t cap);

#endif
