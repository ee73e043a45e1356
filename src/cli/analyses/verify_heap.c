/* `hprof verify` for one heap dump: layouts against CLASS DUMPs, and references. */
#include "cli/analyses/verify.h"
#include "cli/readers/classes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hp_verifier *v;
    hp_classes classes;
    uint64_t *ids; /* every dumped object, sorted once collected */
    size_t nids, cap;
    hp_idmap threads; /* thread serials of ROOT THREAD OBJECTs */
    hp_idmap dups;    /* object IDs dumped twice -> times seen in the report walk */
    int shallow, oom;
} dump_ctx;

static void add_id(dump_ctx *c, uint64_t id)
{
    if (c->nids == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        uint64_t *n = realloc(c->ids, cap * sizeof *n);
        if (!n) {
            c->oom = 1;
            return;
        }
        c->ids = n;
        c->cap = cap;
    }
    c->ids[c->nids++] = id;
}

static int is_object(uint8_t tag)
{
    return tag == HP_CLASS_DUMP || tag == HP_INSTANCE_DUMP || tag == HP_OBJ_ARRAY_DUMP ||
           tag == HP_PRIM_ARRAY_DUMP || tag == HP_PRIM_ARRAY_NODATA;
}

static int collect(void *ctx, const hp_sub *s, hp_error *err)
{
    dump_ctx *c = ctx;
    (void)err;
    if (is_object(s->tag)) {
        c->v->objects++;
        if (!c->shallow) add_id(c, s->id);
    }
    if (s->tag == HP_ROOT_THREAD_OBJECT && hp_idmap_put(&c->threads, s->thread, 1) < 0) c->oom = 1;
    return c->oom;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int exists(const dump_ctx *c, uint64_t id)
{
    return c->shallow || (c->nids && bsearch(&id, c->ids, c->nids, sizeof id, cmp_u64));
}

static int is_root(uint8_t tag)
{
    return tag != HP_CLASS_DUMP && tag != HP_INSTANCE_DUMP && tag != HP_OBJ_ARRAY_DUMP &&
           tag != HP_PRIM_ARRAY_DUMP && tag != HP_PRIM_ARRAY_NODATA && tag != HP_HEAP_DUMP_INFO;
}

static void need_object(dump_ctx *c, const hp_sub *s, uint64_t id, const char *what)
{
    if (id == 0 || exists(c, id)) return;
    if (is_root(s->tag))
        hp_vdangling(c->v, s->offset, "%s for object 0x%" PRIx64 ", which is not in this heap dump",
                     hp_sub_name(s->tag), id);
    else
        hp_vdangling(c->v, s->offset,
                     "%s 0x%" PRIx64 " %s 0x%" PRIx64 ", which is not in this heap dump",
                     hp_sub_name(s->tag), s->id, what, id);
}

static void need_thread(dump_ctx *c, const hp_sub *s)
{
    if (!hp_idmap_get(&c->threads, s->thread) && !hp_idmap_get(&c->v->ix->threads, s->thread))
        hp_verr(c->v, s->offset,
                "%s 0x%" PRIx64 " names thread serial %u with no ROOT THREAD OBJECT or "
                "START THREAD",
                hp_sub_name(s->tag), s->id, s->thread);
}

static void need_trace(dump_ctx *c, const hp_sub *s, uint32_t serial)
{
    if (serial != 0 && !hp_idmap_get(&c->v->ix->traces, serial))
        hp_verr(c->v, s->offset, "%s 0x%" PRIx64 " names stack trace serial %u with no TRACE",
                hp_sub_name(s->tag), s->id, serial);
}

static hp_class *need_class(dump_ctx *c, const hp_sub *s, uint64_t class_id, const char *what)
{
    hp_class *k = hp_classes_get(&c->classes, class_id);
    if (!k)
        hp_verr(c->v, s->offset,
                "%s 0x%" PRIx64 " %s 0x%" PRIx64 ", which has no CLASS DUMP in this heap dump",
                hp_sub_name(s->tag), s->id, what, class_id);
    return k;
}

/* Field values run from the object's class up through its supers. */
static void check_instance_refs(dump_ctx *c, const hp_sub *s, const hp_class *k)
{
    const hp_file *f = c->v->f;
    const uint8_t *val = s->data;
    for (size_t steps = 0; k && steps < c->classes.n; steps++) {
        const uint8_t *p = k->fields;
        for (unsigned i = 0; i < k->nfields; i++) {
            hp_field fl;
            hp_next_field(f, &p, &fl);
            if (fl.type == HP_T_OBJECT) need_object(c, s, hp_id(f, val), "references object");
            val += hp_type_size(fl.type, f->id_size);
        }
        k = k->super ? hp_classes_get(&c->classes, k->super) : NULL;
    }
}

static void check_instance(dump_ctx *c, const hp_sub *s)
{
    const hp_file *f = c->v->f;
    need_trace(c, s, s->trace);
    hp_class *k = need_class(c, s, s->ref, "has class");
    if (!k) return;
    if (hp_class_layout(&c->classes, k) != 0) return; /* reported with the CLASS DUMP */
    uint64_t want = hp_class_field_bytes(k, f->id_size);
    if (s->data_len != want) {
        char name[256];
        hp_index_class_name(c->v->ix, k->id, name, sizeof name);
        hp_verr(c->v, s->offset,
                "INSTANCE DUMP 0x%" PRIx64 " of class %s has %" PRIu64
                " field bytes, its CLASS DUMPs declare %" PRIu64,
                s->id, name, s->data_len, want);
        return;
    }
    if (!c->shallow) check_instance_refs(c, s, k);
}

static void check_class(dump_ctx *c, const hp_sub *s)
{
    const hp_file *f = c->v->f;
    hp_class *k = hp_classes_get(&c->classes, s->id);
    need_trace(c, s, s->trace);
    if (!hp_idmap_get(&c->v->ix->classes, s->id))
        hp_verr(c->v, s->offset, "CLASS DUMP 0x%" PRIx64 " has no LOAD CLASS record", s->id);
    if (s->ref) need_class(c, s, s->ref, "has super class");
    if (k && k->offset == s->offset && hp_class_layout(&c->classes, k) != 0)
        hp_verr(c->v, s->offset, "CLASS DUMP 0x%" PRIx64 " super class chain is broken or loops",
                s->id);
    else if (k && k->offset == s->offset && s->instance_size != hp_class_field_bytes(k, f->id_size))
        hp_verr(c->v, s->offset,
                "CLASS DUMP 0x%" PRIx64 " instance size %u, its fields need %" PRIu64, s->id,
                s->instance_size, hp_class_field_bytes(k, f->id_size));
    need_object(c, s, s->loader, "has class loader");
    need_object(c, s, s->signers, "has signers");
    need_object(c, s, s->domain, "has protection domain");
    const uint8_t *p = s->cp;
    hp_field fl;
    for (unsigned i = 0; i < s->ncp; i++) {
        hp_next_cp(f, &p, &fl);
        if (fl.type == HP_T_OBJECT) need_object(c, s, fl.value, "has constant pool object");
    }
    p = s->statics;
    for (unsigned i = 0; i < s->nstatics; i++) {
        hp_next_static(f, &p, &fl);
        if (!hp_idmap_get(&c->v->ix->strings, fl.name_id))
            hp_verr(c->v, s->offset,
                    "CLASS DUMP 0x%" PRIx64 " static field name 0x%" PRIx64 " has no UTF8 record",
                    s->id, fl.name_id);
        if (fl.type == HP_T_OBJECT) need_object(c, s, fl.value, "has static field object");
    }
    p = s->fields;
    for (unsigned i = 0; i < s->nfields; i++) {
        hp_next_field(f, &p, &fl);
        if (!hp_idmap_get(&c->v->ix->strings, fl.name_id))
            hp_verr(c->v, s->offset,
                    "CLASS DUMP 0x%" PRIx64 " field name 0x%" PRIx64 " has no UTF8 record", s->id,
                    fl.name_id);
    }
}

static int check(void *ctx, const hp_sub *s, hp_error *err)
{
    dump_ctx *c = ctx;
    const hp_file *f = c->v->f;
    (void)err;
    if (is_object(s->tag) && c->dups.len) {
        uint64_t *seen = hp_idmap_get(&c->dups, s->id);
        if (seen && (*seen)++ > 0)
            hp_verr(c->v, s->offset, "object 0x%" PRIx64 " dumped more than once", s->id);
    }
    switch (s->tag) {
    case HP_INSTANCE_DUMP:
        check_instance(c, s);
        break;
    case HP_CLASS_DUMP:
        check_class(c, s);
        break;
    case HP_OBJ_ARRAY_DUMP:
        need_trace(c, s, s->trace);
        need_class(c, s, s->ref, "has array class");
        for (uint32_t i = 0; i < s->count && !c->shallow; i++)
            need_object(c, s, hp_id(f, s->data + (uint64_t)i * f->id_size), "has element");
        break;
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA:
        need_trace(c, s, s->trace);
        break;
    case HP_ROOT_THREAD_OBJECT:
        need_object(c, s, s->id, NULL);
        need_trace(c, s, s->depth);
        break;
    case HP_ROOT_JNI_LOCAL:
    case HP_ROOT_JAVA_FRAME:
    case HP_ROOT_NATIVE_STACK:
    case HP_ROOT_THREAD_BLOCK:
    case HP_ROOT_JNI_MONITOR:
        need_object(c, s, s->id, NULL);
        need_thread(c, s);
        break;
    case HP_HEAP_DUMP_INFO:
        if (!hp_idmap_get(&c->v->ix->strings, s->id))
            hp_verr(c->v, s->offset,
                    "HEAP DUMP INFO names heap name string 0x%" PRIx64 " with no UTF8 record",
                    s->id);
        break;
    default:
        need_object(c, s, s->id, NULL);
        break;
    }
    return 0;
}

/* Marks IDs that occur twice in the sorted list, for the report walk. */
static void find_duplicates(dump_ctx *c)
{
    for (size_t i = 1; i < c->nids; i++)
        if (c->ids[i] == c->ids[i - 1] && hp_idmap_put(&c->dups, c->ids[i], 0) < 0) c->oom = 1;
}

void hp_verify_dump(hp_verifier *v, size_t d, int shallow)
{
    dump_ctx c = {.v = v, .shallow = shallow};
    hp_error e;
    uint64_t at = v->ix->dumps[d].records[0];
    if (hp_classes_build(&c.classes, v->ix, d, &e) != 0) {
        hp_verr(v, e.offset, "%s", e.what);
        hp_classes_free(&c.classes);
        return;
    }
    if (c.classes.dup_offset != UINT64_MAX)
        hp_verr(v, c.classes.dup_offset,
                "CLASS DUMP repeats a class already dumped in this heap dump");
    hp_dump_walk(v->ix, d, collect, &c, &e);
    if (!c.oom && c.nids) {
        qsort(c.ids, c.nids, sizeof *c.ids, cmp_u64);
        find_duplicates(&c);
    }
    if (c.oom)
        hp_verr(v, at, "out of memory indexing heap dump %zu (try --shallow)", d + 1);
    else
        hp_dump_walk(v->ix, d, check, &c, &e);
    free(c.ids);
    hp_idmap_free(&c.threads);
    hp_idmap_free(&c.dups);
    hp_classes_free(&c.classes);
}
