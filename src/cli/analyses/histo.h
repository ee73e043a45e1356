/* Per-class instance counts and shallow bytes of one heap dump. */
#ifndef HPROF_CLI_HISTO_H
#define HPROF_CLI_HISTO_H

#include "cli/analyses/sizes.h"
#include "cli/readers/classes.h"

typedef struct {
    uint64_t class_id; /* 0 for primitive arrays */
    uint8_t prim_type; /* element type of a primitive array row */
    uint64_t count, bytes;
    uint64_t retained; /* filled by hp_histo_add_retained() */
} hp_histo_row;

typedef struct {
    hp_histo_row *rows;
    size_t nrows;
    uint64_t instances, bytes;               /* totals over all rows */
    uint64_t classes, roots;                 /* CLASS DUMP and root sub-records seen */
    uint64_t plain, obj_arrays, prim_arrays; /* instances split by kind */
    uint64_t thread_roots;                   /* ROOT THREAD OBJECTs */
} hp_histo;

/* Counts instances and arrays of dump d (0-based). Returns 0 or -1. */
int hp_histo_build(hp_histo *h, const hp_index *ix, size_t d, const hp_model *m, hp_error *err);
void hp_histo_free(hp_histo *h);
/* Shallow size of an object sub-record (instance or array) under model m; 0
 * for class objects and other sub-records. */
uint64_t hp_object_size(const hp_classes *c, const hp_model *m, uint32_t id_size, const hp_sub *s);
/* Java-form name of a row's class ("int[]" for primitive arrays). */
void hp_histo_row_name(const hp_index *ix, const hp_histo_row *row, char *buf, size_t cap);

#endif
