/* Heap dump sub-record decoding, bounds-checked against the enclosing record. */
#include "cli/readers/reader.h"

#include <string.h>

void hp_heap_begin(const hp_record *r, hp_heap_iter *it)
{
    it->p = r->body;
    it->end = r->body + r->length;
    it->record_tag = r->tag;
    it->record_offset = r->offset;
}

/* A cursor over the current sub-record; `f` supplies offsets for messages. */
typedef struct {
    const hp_file *f;
    const hp_heap_iter *it;
    const uint8_t *p, *end;
    uint8_t tag; /* the sub-record's, named in messages only (hp_sub_name) */
    hp_error *err;
} cur;

static uint64_t off(const cur *c)
{
    return (uint64_t)(c->p - c->f->base);
}

/* Names the enclosing record too: a sub-record must end inside its segment. */
static int need(cur *c, uint64_t n, const char *field)
{
    if ((uint64_t)(c->end - c->p) >= n) return 0;
    return hp_fail(c->err, off(c),
                   "%s truncated in %s (%llu bytes left in the %s record at offset %llu, "
                   "need %llu)",
                   hp_sub_name(c->tag), field, (unsigned long long)(c->end - c->p),
                   hp_tag_name(c->it->record_tag), (unsigned long long)c->it->record_offset,
                   (unsigned long long)n);
}

static int u1(cur *c, uint8_t *v, const char *field)
{
    if (need(c, 1, field)) return -1;
    *v = *c->p++;
    return 0;
}

static int u2(cur *c, uint16_t *v, const char *field)
{
    if (need(c, 2, field)) return -1;
    *v = hp_be16(c->p);
    c->p += 2;
    return 0;
}

static int u4(cur *c, uint32_t *v, const char *field)
{
    if (need(c, 4, field)) return -1;
    *v = hp_be32(c->p);
    c->p += 4;
    return 0;
}

static int id(cur *c, uint64_t *v, const char *field)
{
    if (need(c, c->f->id_size, field)) return -1;
    *v = hp_id(c->f, c->p);
    c->p += c->f->id_size;
    return 0;
}

static int skip(cur *c, uint64_t n, const char *field)
{
    if (need(c, n, field)) return -1;
    c->p += n;
    return 0;
}

/* Reads a basic type code and returns its value size, rejecting bad codes. */
static int type(cur *c, uint8_t *t, unsigned *size, const char *field)
{
    uint64_t at = off(c);
    if (u1(c, t, field)) return -1;
    *size = hp_type_size(*t, c->f->id_size);
    if (*size == 0)
        return hp_fail(c->err, at, "%s has invalid basic type %u in %s", hp_sub_name(c->tag), *t,
                       field);
    return 0;
}

static int class_dump(cur *c, hp_sub *s)
{
    uint64_t reserved;
    uint8_t t;
    unsigned size;
    if (id(c, &s->id, "class ID") || u4(c, &s->trace, "stack trace serial") ||
        id(c, &s->ref, "super class ID") || id(c, &s->loader, "class loader ID") ||
        id(c, &s->signers, "signers ID") || id(c, &s->domain, "protection domain ID") ||
        id(c, &reserved, "reserved ID") || id(c, &reserved, "reserved ID") ||
        u4(c, &s->instance_size, "instance size") || u2(c, &s->ncp, "constant pool size"))
        return -1;
    s->cp = c->p;
    for (unsigned i = 0; i < s->ncp; i++)
        if (skip(c, 2, "constant pool entry") || type(c, &t, &size, "constant pool entry") ||
            skip(c, size, "constant pool value"))
            return -1;
    if (u2(c, &s->nstatics, "static field count")) return -1;
    s->statics = c->p;
    for (unsigned i = 0; i < s->nstatics; i++)
        if (skip(c, c->f->id_size, "static field name") ||
            type(c, &t, &size, "static field type") || skip(c, size, "static field value"))
            return -1;
    if (u2(c, &s->nfields, "instance field count")) return -1;
    s->fields = c->p;
    for (unsigned i = 0; i < s->nfields; i++)
        if (skip(c, c->f->id_size, "instance field name") ||
            type(c, &t, &size, "instance field type"))
            return -1;
    return 0;
}

static int prim_array(cur *c, hp_sub *s, int with_data)
{
    uint64_t at;
    if (id(c, &s->id, "array ID") || u4(c, &s->trace, "stack trace serial") ||
        u4(c, &s->count, "element count"))
        return -1;
    at = off(c);
    if (u1(c, &s->elem_type, "element type")) return -1;
    if (!hp_is_prim_type(s->elem_type))
        return hp_fail(c->err, at, "%s has invalid element type %u", hp_sub_name(c->tag),
                       s->elem_type);
    if (!with_data) return 0;
    s->data = c->p;
    s->data_len = (uint64_t)s->count * hp_type_size(s->elem_type, c->f->id_size);
    return skip(c, s->data_len, "elements");
}

static int body(cur *c, hp_sub *s)
{
    switch (s->tag) {
    case HP_ROOT_UNKNOWN:
    case HP_ROOT_STICKY_CLASS:
    case HP_ROOT_MONITOR_USED:
    case HP_ROOT_INTERNED_STRING:
    case HP_ROOT_FINALIZING:
    case HP_ROOT_DEBUGGER:
    case HP_ROOT_REFERENCE_CLEANUP:
    case HP_ROOT_VM_INTERNAL:
    case HP_ROOT_UNREACHABLE:
        return id(c, &s->id, "object ID");
    case HP_ROOT_JNI_GLOBAL:
        return id(c, &s->id, "object ID") || id(c, &s->ref, "JNI ref ID");
    case HP_ROOT_JNI_LOCAL:
    case HP_ROOT_JAVA_FRAME:
    case HP_ROOT_JNI_MONITOR:
    case HP_ROOT_THREAD_OBJECT:
        return id(c, &s->id, "object ID") || u4(c, &s->thread, "thread serial") ||
               u4(c, &s->depth,
                  s->tag == HP_ROOT_THREAD_OBJECT ? "stack trace serial" : "frame number");
    case HP_ROOT_NATIVE_STACK:
    case HP_ROOT_THREAD_BLOCK:
        return id(c, &s->id, "object ID") || u4(c, &s->thread, "thread serial");
    case HP_HEAP_DUMP_INFO:
        return u4(c, &s->thread, "heap type") || id(c, &s->id, "name ID");
    case HP_CLASS_DUMP:
        return class_dump(c, s);
    case HP_INSTANCE_DUMP: {
        uint32_t n;
        if (id(c, &s->id, "object ID") || u4(c, &s->trace, "stack trace serial") ||
            id(c, &s->ref, "class ID") || u4(c, &n, "field byte count"))
            return -1;
        s->data = c->p;
        s->data_len = n;
        return skip(c, n, "field values");
    }
    case HP_OBJ_ARRAY_DUMP:
        if (id(c, &s->id, "array ID") || u4(c, &s->trace, "stack trace serial") ||
            u4(c, &s->count, "element count") || id(c, &s->ref, "array class ID"))
            return -1;
        s->data = c->p;
        s->data_len = (uint64_t)s->count * c->f->id_size;
        return skip(c, s->data_len, "elements");
    case HP_PRIM_ARRAY_DUMP:
        return prim_array(c, s, 1);
    case HP_PRIM_ARRAY_NODATA:
        return prim_array(c, s, 0);
    default:
        return -2;
    }
}

/* Instances and arrays (nearly every sub-record of a dump) when they are whole:
 * read without a check per field. Returns 0 to leave the sub-record to the
 * checked path of body(), which also words any error. */
static int fast_object(cur *c, hp_sub *s)
{
    unsigned n = c->f->id_size;
    const uint8_t *p = c->p;
    uint64_t left = (uint64_t)(c->end - p), head = 2 * (uint64_t)n + 8, unit = 1;
    if (s->tag == HP_PRIM_ARRAY_DUMP) head = n + 9;
    if ((s->tag != HP_INSTANCE_DUMP && s->tag != HP_OBJ_ARRAY_DUMP &&
         s->tag != HP_PRIM_ARRAY_DUMP) ||
        left < head)
        return 0;
    s->id = hp_id(c->f, p);
    s->trace = hp_be32(p + n);
    if (s->tag == HP_INSTANCE_DUMP) {
        s->ref = hp_id(c->f, p + n + 4);
        s->data_len = hp_be32(p + 2 * n + 4);
    } else {
        s->count = hp_be32(p + n + 4);
        if (s->tag == HP_OBJ_ARRAY_DUMP) {
            s->ref = hp_id(c->f, p + n + 8);
            unit = n;
        } else {
            s->elem_type = p[n + 8];
            if (!hp_is_prim_type(s->elem_type)) return 0;
            unit = hp_type_size(s->elem_type, n);
        }
        s->data_len = (uint64_t)s->count * unit;
    }
    if (left - head < s->data_len) return 0;
    s->data = p + head;
    c->p = p + head + s->data_len;
    return 1;
}

int hp_heap_next(const hp_file *f, hp_heap_iter *it, hp_sub *s, hp_error *err)
{
    if (it->p >= it->end) return 0;
    memset(s, 0, sizeof *s);
    s->tag = *it->p;
    s->offset = (uint64_t)(it->p - f->base);
    cur c = {f, it, it->p + 1, it->end, s->tag, err};
    int rc = fast_object(&c, s) ? 0 : body(&c, s);
    if (rc == -2) return hp_fail(err, s->offset, "unknown heap dump sub-record tag 0x%02x", s->tag);
    if (rc != 0) return -1;
    it->p = c.p;
    return 1;
}

void hp_next_cp(const hp_file *f, const uint8_t **p, hp_field *o)
{
    memset(o, 0, sizeof *o);
    o->cp_index = hp_be16(*p);
    o->type = (*p)[2];
    unsigned size = hp_type_size(o->type, f->id_size);
    o->value = hp_value(*p + 3, size);
    *p += 3 + size;
}

void hp_next_static(const hp_file *f, const uint8_t **p, hp_field *o)
{
    memset(o, 0, sizeof *o);
    o->name_id = hp_id(f, *p);
    o->type = (*p)[f->id_size];
    unsigned size = hp_type_size(o->type, f->id_size);
    o->value = hp_value(*p + f->id_size + 1, size);
    *p += f->id_size + 1 + size;
}

void hp_next_field(const hp_file *f, const uint8_t **p, hp_field *o)
{
    memset(o, 0, sizeof *o);
    o->name_id = hp_id(f, *p);
    o->type = (*p)[f->id_size];
    *p += f->id_size + 1;
}

int hp_sub_at(const hp_file *f, uint64_t offset, hp_sub *s, hp_error *err)
{
    if (offset >= f->size) return hp_fail(err, offset, "sub-record offset past the end of file");
    hp_heap_iter it = {f->base + offset, f->base + f->size, HP_HEAP_DUMP_SEGMENT, offset};
    return hp_heap_next(f, &it, s, err) == 1 ? 1 : -1;
}
