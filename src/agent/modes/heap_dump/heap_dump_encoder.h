/* heap=dump's encoder interface: one implementation per format (ascii in
 * ascii.c, binary in binary.c, next to this file), chosen once per dump.
 * Apart from prepare_class and stream_io, every function runs while the heap
 * is walked (often on the VM thread) and writes only into the dump stream. */
#ifndef HPROF_HEAP_DUMP_ENCODER_H
#define HPROF_HEAP_DUMP_ENCODER_H

#include "agent/modes/heap_dump/classes.h"
#include "agent/modes/heap_dump/stream.h"

#include <jvmti.h>
#include <stdint.h>

enum hd_root_kind {
    HD_ROOT_UNKNOWN,
    HD_ROOT_JNI_GLOBAL,   /* aux: the per-dump global reference number */
    HD_ROOT_JNI_LOCAL,    /* thread, depth */
    HD_ROOT_JAVA_FRAME,   /* thread, depth */
    HD_ROOT_STICKY_CLASS, /* name */
    HD_ROOT_MONITOR,
    HD_ROOT_THREAD, /* thread, trace (the thread's stack when dumped) */
};

struct hd_root {
    enum hd_root_kind kind;
    hp_objid_t obj;
    uint32_t thread, trace, aux;
    int32_t depth;
    const char *name;
};

struct hp_heap_dump_encoder {
    /* Before the walk, on the dumping thread; may write records (binary:
     * the UTF8 records of field names). */
    void (*prepare_class)(struct hd_class *c);
    /* How the stream is framed and where its chunks go. */
    void (*stream_io)(struct hd_stream_io *io);
    void (*root)(struct hd_stream *s, const struct hd_root *r);
    /* values: n_values slots, own fields first, then the superclass's. */
    void (*instance)(struct hd_stream *s, hp_objid_t obj, uint32_t trace, const struct hd_class *c,
                     const jvalue *values);
    /* Returns how many elements the record holds (fewer than `length` only
     * when the format cannot hold them all); then obj_array_elem for each
     * non-null element in index order, and obj_array_end. */
    uint32_t (*obj_array_begin)(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                                const struct hd_class *c, uint32_t length);
    void (*obj_array_elem)(struct hd_stream *s, uint32_t index, hp_objid_t elem);
    void (*obj_array_end)(struct hd_stream *s);
    /* Returns how many elements were written (see obj_array_begin). */
    uint32_t (*prim_array)(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                           const struct hd_class *c, uint32_t count, const void *elems);
    void (*class_dump)(struct hd_stream *s, const struct hd_class *c);
};

extern const struct hp_heap_dump_encoder hp_heap_dump_ascii;
extern const struct hp_heap_dump_encoder hp_heap_dump_binary;

#endif
