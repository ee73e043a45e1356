/* The heap walk: one FollowReferences pass whose callbacks turn each object
 * into its record as soon as the VM has reported all of it. HotSpot reports
 * an object's outgoing references and primitive values together, when it
 * visits the object (after the roots), so a record is complete when the
 * callbacks move on to another referrer. */
#ifndef HPROF_HD_WALK_H
#define HPROF_HD_WALK_H

#include "agent/modes/heap_dump/classes.h"
#include "agent/modes/heap_dump/heap_dump_encoder.h"
#include "agent/modes/heap_dump/map.h"
#include "agent/modes/heap_dump/stream.h"

#include <jvmti.h>

struct hd_walk {
    const struct hp_heap_dump_encoder *enc;
    struct hd_stream *s;
    struct hd_classes *cs;
    const struct hd_map *threads;
    struct hd_map arrays; /* object array ID -> length | size << 32, from discovery */
    /* The object whose references are being reported. */
    hp_objid_t cur;
    enum { CUR_NONE, CUR_INSTANCE, CUR_OBJ_ARRAY, CUR_PRIM_ARRAY, CUR_CLASS, CUR_SKIP } kind;
    struct hd_class *cls; /* its class, or itself for CUR_CLASS */
    bool prim_done;
    jvalue *values;
    uint32_t cap_values;
    struct hd_class *cache[256]; /* class lookups by class object ID */
    uint32_t gref;
    /* Roots reported while an object array's record is open wait here. */
    struct hd_root *pending;
    uint32_t n_pending, cap_pending;
    uint64_t objects, skipped, truncated, oom;
    uint64_t mismatched; /* values whose field index or type fit no field */
};

/* Walks the heap; false if FollowReferences failed. The stream gets the
 * roots, instances and arrays; class dumps are left to the caller. */
bool hd_walk_run(struct hd_walk *w, jvmtiEnv *jvmti);
void hd_walk_free(struct hd_walk *w);

#endif
