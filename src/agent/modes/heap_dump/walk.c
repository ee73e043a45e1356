#include "agent/modes/heap_dump/walk.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/modes/heap_dump/threads.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <stdlib.h>

/* The allocation trace of an object: heap=sites keeps the object's site in
 * the upper bits of its ID; objects it did not track cite the empty trace,
 * as every object in the JVM's own dumps does. The lookup is lock-free. */
static uint32_t trace_of(hp_objid_t obj)
{
    return hp_site_trace_serial(hp_site_of_tag(obj));
}

static struct hd_class *class_of(struct hd_walk *w, jlong tag)
{
    if (tag == 0) return NULL;
    struct hd_class **slot = &w->cache[((uint64_t)tag * 0x9e3779b97f4a7c15ull) >> 56];
    struct hd_class *hit = *slot;
    if (hit && hit->obj == (hp_objid_t)tag) return hit;
    struct hd_class *c = hd_class_of(w->cs, (hp_objid_t)tag);
    if (c) *slot = c;
    return c;
}

static hp_objid_t tag_of(jlong *tag_ptr)
{
    if (*tag_ptr == 0) *tag_ptr = (jlong)hp_objid_new(0);
    return (hp_objid_t)*tag_ptr;
}

/* Emits the record of the object being reported, now complete. */
static void finish(struct hd_walk *w)
{
    switch (w->kind) {
    case CUR_INSTANCE:
        w->enc->instance(w->s, w->cur, trace_of(w->cur), w->cls, w->values);
        w->objects++;
        break;
    case CUR_OBJ_ARRAY:
        w->enc->obj_array_end(w->s);
        w->objects++;
        for (uint32_t i = 0; i < w->n_pending; i++)
            w->enc->root(w->s, &w->pending[i]);
        w->n_pending = 0;
        break;
    case CUR_PRIM_ARRAY:
        /* No contents reported (primarrays=n): an empty array record. */
        if (!w->prim_done) w->enc->prim_array(w->s, w->cur, trace_of(w->cur), 0, w->cls, 0, NULL);
        w->objects++;
        break;
    default:
        break;
    }
    w->kind = CUR_NONE;
    w->cur = 0;
}

static void begin(struct hd_walk *w, hp_objid_t obj, jlong class_tag)
{
    finish(w);
    w->cur = obj;
    struct hd_class *c = class_of(w, class_tag);
    w->kind = CUR_SKIP;
    if (c == NULL) {
        w->skipped++; /* its class was loaded after the dump started */
    } else if (c->unprepared) {
        /* a dormant CDS archive object, see shown() */
    } else if (c == w->cs->java_lang_class) {
        w->cls = hd_class_of(w->cs, obj); /* NULL: not a class we dump, see shown() */
        /* A class linked by another thread since it was read has no fields
         * in its CLASS DUMP: its static values are not reported either. */
        if (w->cls && !w->cls->unprepared) w->kind = CUR_CLASS;
    } else if (c->array_elem == 'L') {
        uint64_t v;
        if (!hd_map_get(&w->arrays, obj, &v)) return; /* length lost to memory shortage */
        uint32_t length = (uint32_t)v;
        w->cls = c;
        w->kind = CUR_OBJ_ARRAY;
        if (w->enc->obj_array_begin(w->s, obj, trace_of(obj), v >> 32, c, length) < length)
            w->truncated++;
    } else if (c->array_elem) {
        w->cls = c;
        w->kind = CUR_PRIM_ARRAY;
        w->prim_done = false;
    } else {
        if (c->n_values > w->cap_values) {
            jvalue *grown = realloc(w->values, c->n_values * sizeof *grown);
            if (grown == NULL) {
                w->oom++;
                return;
            }
            w->values = grown;
            w->cap_values = c->n_values;
        }
        memset(w->values, 0, c->n_values * sizeof *w->values);
        w->cls = c;
        w->kind = CUR_INSTANCE;
    }
}

static void root(struct hd_walk *w, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                 hp_objid_t obj, jlong class_tag)
{
    struct hd_root r = {HD_ROOT_UNKNOWN, obj, 0, 0, 0, 0, NULL};
    uint32_t trace = 0;
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
        r.kind = HD_ROOT_JNI_GLOBAL;
        r.aux = ++w->gref;
        r.trace = trace_of(obj);
        break;
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: {
        r.kind = HD_ROOT_STICKY_CLASS;
        const struct hd_class *c = hd_class_of(w->cs, obj);
        r.name = c ? c->name : NULL;
        break;
    }
    case JVMTI_HEAP_REFERENCE_MONITOR:
        r.kind = HD_ROOT_MONITOR;
        break;
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        r.kind = HD_ROOT_JAVA_FRAME;
        hd_thread_lookup(w->threads, (uint64_t)info->stack_local.thread_tag, &r.thread, &trace);
        r.depth = info->stack_local.depth;
        break;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        r.kind = HD_ROOT_JNI_LOCAL;
        hd_thread_lookup(w->threads, (uint64_t)info->jni_local.thread_tag, &r.thread, &trace);
        r.depth = info->jni_local.depth;
        break;
    case JVMTI_HEAP_REFERENCE_THREAD:
        r.kind = HD_ROOT_THREAD;
        hd_thread_lookup(w->threads, obj, &r.thread, &r.trace);
        break;
    default:
        break;
    }
    (void)class_tag;
    /* HotSpot reports the stack roots of unmounted virtual threads while it
     * visits objects; an open array record must not be interrupted. */
    if (w->kind != CUR_OBJ_ARRAY) {
        w->enc->root(w->s, &r);
        return;
    }
    if (w->n_pending == w->cap_pending) {
        uint32_t cap = w->cap_pending ? w->cap_pending * 2 : 64;
        struct hd_root *grown = realloc(w->pending, cap * sizeof *grown);
        if (grown == NULL) {
            w->oom++;
            return;
        }
        w->pending = grown;
        w->cap_pending = cap;
    }
    w->pending[w->n_pending++] = r;
}

static void add_cp(struct hd_walk *w, struct hd_class *c, jint index, hp_objid_t value)
{
    if (c->n_cp == c->cap_cp) {
        uint32_t cap = c->cap_cp ? c->cap_cp * 2 : 16;
        struct hd_cp_entry *grown = realloc(c->cp, cap * sizeof *grown);
        if (grown == NULL) {
            w->oom++;
            return;
        }
        c->cp = grown;
        c->cap_cp = cap;
    }
    c->cp[c->n_cp++] = (struct hd_cp_entry){(uint32_t)index, value};
}

/* A reference as the dump shows it (c: the referee's class). The CDS
 * archive holds objects of classes not loaded or prepared yet, and mirrors
 * of such classes; the JVM's own dumps leave them out and show references
 * to them as null, and so does this one. */
static hp_objid_t shown(struct hd_walk *w, const struct hd_class *c, hp_objid_t obj)
{
    if (c == NULL || c->unprepared) return 0;
    if (c != w->cs->java_lang_class || class_of(w, (jlong)obj)) return obj;
    for (int i = 0; i < 9; i++)
        if (w->cs->prims[i] == obj) return obj;
    return 0;
}

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                 jlong class_tag, jlong referrer_class_tag, jlong size,
                                 jlong *tag_ptr, jlong *referrer_tag_ptr, jint length,
                                 void *user_data)
{
    struct hd_walk *w = user_data;
    hp_objid_t obj = tag_of(tag_ptr);
    /* What the visit of this object will need but not be told. */
    struct hd_class *c = class_of(w, class_tag);
    if (length >= 0) {
        if (c && c->array_elem == 'L' &&
            !hd_map_put(&w->arrays, obj,
                        (uint32_t)length | (uint64_t)(size > UINT32_MAX ? UINT32_MAX : size) << 32))
            w->oom++;
    } else if (c && c->inst_size == 0) {
        c->inst_size = (uint64_t)size;
    }
    if (referrer_tag_ptr == NULL) {
        root(w, kind, info, obj, class_tag);
        return JVMTI_VISIT_OBJECTS;
    }
    hp_objid_t from = tag_of(referrer_tag_ptr);
    if (from != w->cur) begin(w, from, referrer_class_tag);
    int32_t slot;
    obj = shown(w, c, obj);
    if (obj == 0) return JVMTI_VISIT_OBJECTS;
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_FIELD:
        if (w->kind != CUR_INSTANCE) break;
        slot = hd_class_slot(w->cls, info->field.index);
        if (slot >= 0 && w->cls->slot_type && w->cls->slot_type[slot] == 'L')
            w->values[slot].j = (jlong)obj;
        else
            w->mismatched++;
        break;
    case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT:
        if (w->kind == CUR_OBJ_ARRAY)
            w->enc->obj_array_elem(w->s, (uint32_t)info->array.index, obj);
        break;
    case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
        if (w->kind != CUR_CLASS) break;
        slot = hd_class_slot(w->cls, info->field.index);
        if (slot <= -2 && w->cls->stat[-2 - slot].type == 'L')
            w->cls->stat_val[-2 - slot].j = (jlong)obj;
        else
            w->mismatched++;
        break;
    case JVMTI_HEAP_REFERENCE_CONSTANT_POOL:
        if (w->kind == CUR_CLASS) add_cp(w, w->cls, info->constant_pool.index, obj);
        break;
    case JVMTI_HEAP_REFERENCE_SIGNERS:
        if (w->kind == CUR_CLASS) w->cls->signers = obj;
        break;
    case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
        if (w->kind == CUR_CLASS) w->cls->domain = obj;
        break;
    default:
        break;
    }
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL on_primitive_field(jvmtiHeapReferenceKind kind,
                                       const jvmtiHeapReferenceInfo *info, jlong object_class_tag,
                                       jlong *object_tag_ptr, jvalue value,
                                       jvmtiPrimitiveType value_type, void *user_data)
{
    struct hd_walk *w = user_data;
    hp_objid_t from = tag_of(object_tag_ptr);
    if (from != w->cur) begin(w, from, object_class_tag);
    if (w->kind != CUR_INSTANCE && w->kind != CUR_CLASS) return JVMTI_VISIT_OBJECTS;
    /* jvmtiPrimitiveType values are the signature characters. */
    int32_t slot = hd_class_slot(w->cls, info->field.index);
    if (kind == JVMTI_HEAP_REFERENCE_FIELD && slot >= 0 && w->cls->slot_type &&
        w->cls->slot_type[slot] == (char)value_type)
        w->values[slot] = value;
    else if (kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD && slot <= -2 &&
             w->cls->stat[-2 - slot].type == (char)value_type)
        w->cls->stat_val[-2 - slot] = value;
    else
        w->mismatched++;
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL on_array_values(jlong class_tag, jlong size, jlong *tag_ptr, jint element_count,
                                    jvmtiPrimitiveType element_type, const void *elements,
                                    void *user_data)
{
    (void)element_type;
    struct hd_walk *w = user_data;
    hp_objid_t obj = tag_of(tag_ptr);
    if (obj != w->cur) begin(w, obj, class_tag);
    if (w->kind == CUR_PRIM_ARRAY && !w->prim_done) {
        if (w->enc->prim_array(w->s, obj, trace_of(obj), (uint64_t)size, w->cls,
                               (uint32_t)element_count, elements) < (uint32_t)element_count)
            w->truncated++;
        w->prim_done = true;
    }
    return JVMTI_VISIT_OBJECTS;
}

bool hd_walk_run(struct hd_walk *w, jvmtiEnv *jvmti)
{
    hd_map_init(&w->arrays);
    /* jhat and its successors look for thread 200000, which JNI-local and
     * Java-frame roots of unknown threads cite: a fake root defines it. */
    struct hd_root fake = {HD_ROOT_THREAD, 0, HP_THREAD_SERIAL_UNKNOWN, HP_TRACE_EMPTY, 0, 0, NULL};
    w->enc->root(w->s, &fake);
    jvmtiHeapCallbacks cb = {0};
    cb.heap_reference_callback = on_reference;
    if (hp.opt.primfields) cb.primitive_field_callback = on_primitive_field;
    if (hp.opt.primarrays) cb.array_primitive_value_callback = on_array_values;
    bool ok = hp_jvmti_ok(jvmti, (*jvmti)->FollowReferences(jvmti, 0, NULL, NULL, &cb, w),
                          "FollowReferences");
    finish(w);
    /* JVM TI reports no java.lang.Class instance fields: zeros. */
    const struct hd_class *jlc = w->cs->java_lang_class;
    jvalue *zeros = jlc ? calloc(jlc->n_values + 1, sizeof *zeros) : NULL;
    for (int i = 0; zeros && i < 9; i++) {
        if (w->cs->prims[i] == 0) continue;
        w->enc->instance(w->s, w->cs->prims[i], trace_of(w->cs->prims[i]), jlc, zeros);
        w->objects++;
    }
    free(zeros);
    return ok;
}

void hd_walk_free(struct hd_walk *w)
{
    hd_map_free(&w->arrays);
    free(w->values);
    free(w->pending);
    w->values = NULL;
    w->cap_values = 0;
}
