/*
 * The object graph of one heap dump, in compact arrays: objects numbered by
 * hp_objects, outgoing references in CSR form (out[out_start[i] ..
 * out_start[i+1]) are the objects i points to), and the GC roots with their
 * kinds. Edges are what VisualVM's heap library follows: instance reference
 * fields, object array elements and static fields of classes. The `referent`
 * of a weak, soft, phantom or finalizer reference is kept but flagged
 * HP_WEAK_EDGE, so reachability can skip it.
 */
#ifndef HPROF_CLI_HEAP_GRAPH_H
#define HPROF_CLI_HEAP_GRAPH_H

#include "cli/analyses/sizes.h"
#include "cli/heap/objects.h"
#include "cli/heap/spill.h"
#include "cli/readers/classes.h"

#define HP_WEAK_EDGE 0x80000000u
#define HP_EDGE_TARGET(e) ((e) & ~HP_WEAK_EDGE)

typedef struct {
    uint32_t object;
    uint8_t kind; /* root sub-record tag */
} hp_root;

/* Reference fields of a class's instances: byte offsets into the field data. */
typedef struct {
    uint32_t first, count; /* into hp_graph.ref_offsets */
    int32_t referent;      /* offset of Reference.referent if weak-like, else -1 */
    int usable;            /* layout known and consistent */
} hp_ref_layout;

/* What each object is, in one word (hp_graph.classof): the kind in the top two
 * bits; for instances and object arrays the index of their class in
 * hp_graph.classes (HP_CLASSOF_UNKNOWN: no CLASS DUMP), for primitive arrays
 * the element type. Lets analyses group objects by class without decoding them. */
#define HP_CLASSOF_INSTANCE 0x00000000u
#define HP_CLASSOF_OBJ_ARRAY 0x40000000u
#define HP_CLASSOF_PRIM_ARRAY 0x80000000u
#define HP_CLASSOF_CLASS 0xc0000000u
#define HP_CLASSOF_KIND(c) ((c)&0xc0000000u)
#define HP_CLASSOF_INDEX(c) ((c)&0x3fffffffu)
#define HP_CLASSOF_UNKNOWN 0x3fffffffu

typedef struct {
    const hp_index *ix;
    size_t dump;
    const hp_model *model;
    hp_objects obj;
    hp_classes classes;
    hp_ref_layout *layouts; /* parallel to classes.v */
    uint32_t *ref_offsets;
    uint32_t *shallow;   /* per object, under the model; UINT32_MAX: look it up */
    uint32_t *classof;   /* per object, HP_CLASSOF_* */
    uint32_t *out_start; /* obj.n + 1 entries */
    uint32_t *out;
    uint32_t nedges;
    hp_root *roots; /* in file order; an object may be rooted several times */
    size_t nroots;
    int borrowed; /* the arrays above live in a mapped index file (store.h) */
} hp_graph;

/* Builds the graph; the arrays the dominators do not use are spilled (spill.h). */
int hp_graph_build(hp_graph *g, const hp_index *ix, size_t dump, const hp_model *m, hp_spill *sp,
                   hp_error *err);
void hp_graph_free(hp_graph *g);
/* Only the classes and their layouts, from CLASS DUMP offsets; the caller sets
 * the arrays (obj, shallow, edges, roots) from a saved index and they are not
 * freed by hp_graph_free(). */
int hp_graph_classes_from(hp_graph *g, const hp_index *ix, size_t dump, const hp_model *m,
                          const uint64_t *class_offsets, size_t n, hp_error *err);

/* Decodes object i's sub-record (already validated when the graph was built). */
void hp_graph_object(const hp_graph *g, uint32_t i, hp_sub *s);
/* Shallow size of the object whose sub-record is at offset (0 if none). */
uint64_t hp_graph_size_at(const hp_graph *g, uint64_t offset);
/* Shallow size of object i under the graph's model (0 for class objects). */
uint64_t hp_graph_shallow(const hp_graph *g, uint32_t i);
/* Java-form class name of object i ("java.lang.Class" for class objects). */
void hp_graph_class_name(const hp_graph *g, uint32_t i, char *buf, size_t cap);

#endif
