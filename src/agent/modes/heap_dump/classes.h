/* The classes of one heap dump: every loaded class with its field layout,
 * taken before the walk (JVM TI class functions cannot be called from heap
 * callbacks), plus what the walk learns about each (static values, constant
 * pool references, signers, protection domain, instance size). */
#ifndef HPROF_HD_CLASSES_H
#define HPROF_HD_CLASSES_H

#include "agent/modes/heap_dump/map.h"
#include "agent/tables/objid.h"

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct hd_field {
    char *name;
    uint64_t name_id; /* filled by the encoder's prepare_class (binary: UTF8 ID) */
    char type;        /* signature character; 'L' for any reference */
    /* A field HotSpot hides from reflection and so from the JVM TI heap
     * walk's field indices (its value is never reported; written as 0). */
    bool hidden;
};

struct hd_cp_entry {
    uint32_t index;
    hp_objid_t value;
};

struct hd_class {
    hp_objid_t obj;
    uint32_t serial;
    const char *name; /* dotted, arrays as T[] (the class table's copy) */
    hp_objid_t super, loader, signers, domain;
    struct hd_class *super_cls;
    bool is_interface;
    bool unprepared; /* loaded, not prepared: no instances but CDS archive ones */
    char array_elem; /* 0: not an array; 'L' for object arrays, else the primitive char */
    /* Own fields, each in GetClassFields order. */
    struct hd_field *inst, *stat;
    uint32_t n_inst, n_stat;
    uint32_t n_declared; /* all declared fields */
    uint32_t n_hidden;   /* of which hidden: JVM TI field indices count the others */
    /* Instance values of an object: own fields first, then the superclass's,
     * and so on, as INSTANCE DUMP lists them. */
    uint32_t n_values;
    uint32_t inst_bytes; /* INSTANCE DUMP value bytes, references as 8 */
    char *slot_type;     /* type character of each value slot */
    /* JVM TI field index -> slot: >= 0 instance value slot, <= -2 static
     * (-2 - k for static k), -1 not a field of this class. */
    int32_t *index_map;
    uint32_t n_index;
    /* Learnt during the walk. */
    jvalue *stat_val;
    struct hd_cp_entry *cp;
    uint32_t n_cp, cap_cp;
    uint64_t inst_size; /* object size of an instance (from the walk) */
    bool dumped;
    /* Building only. */
    hp_objid_t *ifaces;
    uint32_t n_ifaces;
    bool built, building;
    struct hd_field *all; /* declared fields in GetClassFields order */
    bool *all_static;
};

struct hd_classes {
    struct hd_class *v;
    uint32_t n;
    struct hd_map by_obj; /* class object ID -> index in v */
    struct hd_class *java_lang_class;
    /* int.class, void.class...: java.lang.Class objects that are no class. */
    hp_objid_t prims[9];
};

/* Takes every loaded class (announcing new ones with LOAD CLASS); false on
 * failure, after an error message. */
bool hd_classes_load(struct hd_classes *cs, jvmtiEnv *jvmti, JNIEnv *jni);
void hd_classes_free(struct hd_classes *cs);

static inline struct hd_class *hd_class_of(const struct hd_classes *cs, hp_objid_t obj)
{
    uint64_t i;
    return hd_map_get(&cs->by_obj, obj, &i) ? &cs->v[i] : NULL;
}

/* Slot of JVM TI field index `index` in class c (see index_map). */
static inline int32_t hd_class_slot(const struct hd_class *c, jint index)
{
    return index >= 0 && (uint32_t)index < c->n_index ? c->index_map[index] : -1;
}

/* Size of a value of signature character t in a binary dump. */
static inline unsigned hd_type_size(char t)
{
    switch (t) {
    case 'Z':
    case 'B':
        return 1;
    case 'C':
    case 'S':
        return 2;
    case 'I':
    case 'F':
        return 4;
    default:
        return 8; /* J, D and references (8-byte IDs) */
    }
}

#endif
