/* heap=dump in binary: HEAP DUMP SEGMENT records of sub-records, then HEAP
 * DUMP END. IDs are 8 bytes; values are big-endian. */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/modes/heap_dump/heap_dump_encoder.h"
#include "agent/output/binary/record.h"
#include "agent/tables/names.h"
#include "agent/tables/trace.h"
#include "format/bytes.h"

#define ID HP_ID_SIZE
/* A record's length is a u4 and includes the segment's other records. */
#define MAX_BODY ((uint64_t)UINT32_MAX - 64)

/* Anything that is not a primitive signature character is an object. */
static uint8_t basic_type(char t)
{
    uint8_t type = hp_type_of_descriptor(t);
    return type ? type : HP_T_OBJECT;
}

static void prepare_class(struct hd_class *c)
{
    for (uint32_t i = 0; i < c->n_inst; i++)
        c->inst[i].name_id = hp_bin_string(c->inst[i].name);
    for (uint32_t i = 0; i < c->n_stat; i++)
        c->stat[i].name_id = hp_bin_string(c->stat[i].name);
}

static void frame_fill(uint8_t *h, uint64_t body)
{
    h[0] = HP_HEAP_DUMP_SEGMENT;
    hp_put_be32(h + 1, hp_record_time());
    hp_put_be32(h + 5, (uint32_t)body);
}

static void write_out(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    hp_out_write(p, n);
}

static void finish(void *ctx)
{
    (void)ctx;
    struct hp_rec r;
    hp_rec_begin(&r, HP_HEAP_DUMP_END);
    hp_rec_end(&r);
}

static void stream_io(struct hd_stream_io *io)
{
    *io = (struct hd_stream_io){9, frame_fill, write_out, finish, NULL};
}

static void root(struct hd_stream *s, const struct hd_root *r)
{
    switch (r->kind) {
    case HD_ROOT_JNI_GLOBAL:
        hd_record(s, 1 + 2 * ID);
        hd_u1(s, HP_ROOT_JNI_GLOBAL);
        hd_u8(s, r->obj);
        hd_u8(s, r->aux);
        break;
    case HD_ROOT_JNI_LOCAL:
    case HD_ROOT_JAVA_FRAME:
        hd_record(s, 1 + ID + 8);
        hd_u1(s, r->kind == HD_ROOT_JNI_LOCAL ? HP_ROOT_JNI_LOCAL : HP_ROOT_JAVA_FRAME);
        hd_u8(s, r->obj);
        hd_u4(s, r->thread);
        hd_u4(s, (uint32_t)r->depth);
        break;
    case HD_ROOT_THREAD:
        hd_record(s, 1 + ID + 8 + 1 + ID + 4);
        hd_u1(s, HP_ROOT_THREAD_OBJECT);
        hd_u8(s, r->obj);
        hd_u4(s, r->thread);
        hd_u4(s, r->trace);
        hd_u1(s, HP_ROOT_THREAD_BLOCK);
        hd_u8(s, r->obj);
        hd_u4(s, r->thread);
        break;
    default:
        hd_record(s, 1 + ID);
        hd_u1(s, r->kind == HD_ROOT_STICKY_CLASS ? HP_ROOT_STICKY_CLASS
                 : r->kind == HD_ROOT_MONITOR    ? HP_ROOT_MONITOR_USED
                                                 : HP_ROOT_UNKNOWN);
        hd_u8(s, r->obj);
        break;
    }
}

static void put_value(struct hd_stream *s, char type, jvalue v)
{
    switch (hd_type_size(type)) {
    case 1:
        hd_u1(s, (uint8_t)v.b);
        break;
    case 2:
        hd_u2(s, (uint16_t)v.c);
        break;
    case 4:
        hd_u4(s, (uint32_t)v.i);
        break;
    default:
        hd_u8(s, (uint64_t)v.j);
        break;
    }
}

static void instance(struct hd_stream *s, hp_objid_t obj, uint32_t trace, const struct hd_class *c,
                     const jvalue *values)
{
    hd_record(s, 1 + ID + 4 + ID + 4 + (uint64_t)c->inst_bytes);
    hd_u1(s, HP_INSTANCE_DUMP);
    hd_u8(s, obj);
    hd_u4(s, trace);
    hd_u8(s, c->obj);
    hd_u4(s, c->inst_bytes);
    uint32_t slot = 0;
    for (const struct hd_class *k = c; k; k = k->super_cls)
        for (uint32_t i = 0; i < k->n_inst; i++)
            put_value(s, k->inst[i].type, values[slot++]);
}

/* The open object array: elements written so far and the record's length. */
static uint32_t arr_next, arr_len;

static uint32_t obj_array_begin(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                                const struct hd_class *c, uint32_t length)
{
    (void)size;
    uint64_t max = (MAX_BODY - (1 + ID + 4 + 4 + ID)) / ID;
    arr_len = length > max ? (uint32_t)max : length;
    arr_next = 0;
    hd_record(s, 1 + ID + 4 + 4 + ID + (uint64_t)arr_len * ID);
    hd_u1(s, HP_OBJ_ARRAY_DUMP);
    hd_u8(s, obj);
    hd_u4(s, trace);
    hd_u4(s, arr_len);
    hd_u8(s, c->obj);
    return arr_len;
}

static const uint64_t zeros[512];

static void pad_to(struct hd_stream *s, uint32_t index)
{
    while (arr_next < index) {
        uint32_t k = index - arr_next;
        if (k > 512) k = 512;
        hd_put(s, zeros, (size_t)k * ID);
        arr_next += k;
    }
}

static void obj_array_elem(struct hd_stream *s, uint32_t index, hp_objid_t elem)
{
    if (index >= arr_len || index < arr_next) return;
    pad_to(s, index);
    hd_u8(s, elem);
    arr_next++;
}

static void obj_array_end(struct hd_stream *s)
{
    pad_to(s, arr_len);
}

static uint32_t prim_array(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                           const struct hd_class *c, uint32_t count, const void *elems)
{
    (void)size;
    unsigned esz = hd_type_size(c->array_elem);
    uint64_t max = (MAX_BODY - (1 + ID + 4 + 4 + 1)) / esz;
    uint32_t n = count > max ? (uint32_t)max : count;
    if (elems == NULL) n = 0;
    hd_record(s, 1 + ID + 4 + 4 + 1 + (uint64_t)n * esz);
    hd_u1(s, HP_PRIM_ARRAY_DUMP);
    hd_u8(s, obj);
    hd_u4(s, trace);
    hd_u4(s, n);
    hd_u1(s, basic_type(c->array_elem));
    hd_put_be(s, elems, n, esz);
    return n;
}

static void class_dump(struct hd_stream *s, const struct hd_class *c)
{
    uint32_t n_cp = c->n_cp > UINT16_MAX ? UINT16_MAX : c->n_cp;
    uint32_t n_stat = c->n_stat > UINT16_MAX ? UINT16_MAX : c->n_stat;
    uint32_t n_inst = c->n_inst > UINT16_MAX ? UINT16_MAX : c->n_inst;
    uint64_t size = 1 + 7 * ID + 4 + 4 + 2 + n_cp * (2 + 1 + ID) + 2 + 2 + n_inst * (ID + 1);
    for (uint32_t i = 0; i < n_stat; i++)
        size += ID + 1 + hd_type_size(c->stat[i].type);
    hd_record(s, size);
    hd_u1(s, HP_CLASS_DUMP);
    hd_u8(s, c->obj);
    hd_u4(s, HP_TRACE_EMPTY);
    hd_u8(s, c->super);
    hd_u8(s, c->loader);
    hd_u8(s, c->signers);
    hd_u8(s, c->domain);
    hd_u8(s, 0);
    hd_u8(s, 0);
    hd_u4(s, c->inst_bytes);
    hd_u2(s, (uint16_t)n_cp);
    for (uint32_t i = 0; i < n_cp; i++) {
        hd_u2(s, (uint16_t)c->cp[i].index);
        hd_u1(s, 2);
        hd_u8(s, c->cp[i].value);
    }
    hd_u2(s, (uint16_t)n_stat);
    for (uint32_t i = 0; i < n_stat; i++) {
        hd_u8(s, c->stat[i].name_id);
        hd_u1(s, basic_type(c->stat[i].type));
        put_value(s, c->stat[i].type, c->stat_val[i]);
    }
    hd_u2(s, (uint16_t)n_inst);
    for (uint32_t i = 0; i < n_inst; i++) {
        hd_u8(s, c->inst[i].name_id);
        hd_u1(s, basic_type(c->inst[i].type));
    }
}

const struct hp_heap_dump_encoder hp_heap_dump_binary = {
    prepare_class,  stream_io,     root,       instance,   obj_array_begin,
    obj_array_elem, obj_array_end, prim_array, class_dump,
};
