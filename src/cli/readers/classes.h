/* The CLASS DUMP records of one heap dump, keyed by class object ID. */
#ifndef HPROF_CLI_CLASSES_H
#define HPROF_CLI_CLASSES_H

#include "cli/readers/index.h"

typedef struct {
    uint64_t id, super, offset; /* offset: the CLASS DUMP sub-record */
    const uint8_t *fields;      /* own instance fields, see hp_next_field() */
    uint16_t nfields;
    uint32_t own_refs, own_prim_bytes;
    /* Whole-chain totals, filled by hp_class_layout(). */
    int layout_state; /* 0 not computed, 1 ok, -1 broken super chain */
    uint64_t refs, prim_bytes;
} hp_class;

typedef struct {
    hp_class *v;
    size_t n;
    hp_idmap by_id;      /* class id -> index in v */
    uint64_t dup_offset; /* first duplicate CLASS DUMP, or UINT64_MAX */
} hp_classes;

int hp_classes_build(hp_classes *c, const hp_index *ix, size_t dump, hp_error *err);
/* The same from the offsets of the CLASS DUMP sub-records (a saved index). */
int hp_classes_from_offsets(hp_classes *c, const hp_index *ix, const uint64_t *offsets, size_t n,
                            hp_error *err);
void hp_classes_free(hp_classes *c);
hp_class *hp_classes_get(const hp_classes *c, uint64_t id);

/*
 * Totals of instance fields over the class and all its supers: reference
 * fields and primitive bytes. Returns 0, or -1 if a super class is missing
 * from the dump or the chain loops (then the totals cover what was found).
 */
int hp_class_layout(const hp_classes *c, hp_class *k);

/* Bytes the INSTANCE DUMP of class k must carry: refs * ID size + primitives. */
static inline uint64_t hp_class_field_bytes(const hp_class *k, uint32_t id_size)
{
    return k->refs * id_size + k->prim_bytes;
}

/* Byte offset of instance field `name` (searching k, then its supers) in the
 * field data of k's instances, with its type; -1 if there is none. */
int64_t hp_class_field_offset(const hp_classes *c, const hp_index *ix, const hp_class *k,
                              const char *name, uint8_t *type);

/*
 * Finds instance field `name` (searching the class, then its supers) in an
 * INSTANCE DUMP whose byte count matches its class layout. Returns 1 with the
 * field's type and value, or 0.
 */
int hp_instance_field(const hp_classes *c, const hp_index *ix, const hp_sub *s, const char *name,
                      uint8_t *type, uint64_t *value);

#endif
