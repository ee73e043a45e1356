/* HEAP DUMP section of the ascii form, as the JDK 8 agent laid it out. */
#include <inttypes.h>
#include <string.h>

#include "cli/analyses/histo.h"
#include "cli/ascii/sections.h"
#include "cli/readers/classes.h"

typedef struct {
    FILE *out;
    const hp_index *ix;
    const hp_model *m;
    hp_classes classes;
    hp_idmap traces; /* JNI-global-rooted object -> its allocation trace */
    int filling;
} ctx_t;

static void name_of(ctx_t *c, uint64_t class_id, char *buf, size_t cap)
{
    if (!hp_index_class_name(c->ix, class_id, buf, cap)) snprintf(buf, cap, "Unknown");
}

/* Pre-pass: the JNI global root line shows the object's trace, found in its dump record. */
static int gather_traces(void *vc, const hp_sub *s, hp_error *err)
{
    ctx_t *c = vc;
    if (!c->filling && s->tag == HP_ROOT_JNI_GLOBAL && hp_idmap_put(&c->traces, s->id, 0) < 0)
        return hp_fail(err, s->offset, "out of memory");
    if (c->filling && (s->tag == HP_INSTANCE_DUMP || s->tag == HP_OBJ_ARRAY_DUMP ||
                       s->tag == HP_PRIM_ARRAY_DUMP)) {
        uint64_t *t = hp_idmap_get(&c->traces, s->id);
        if (t) *t = s->trace;
    }
    return 0;
}

static void root(ctx_t *c, const hp_sub *s)
{
    FILE *out = c->out;
    char name[512];
    fprintf(out, "ROOT %" PRIx64 " (kind=", s->id);
    switch (s->tag) {
    case HP_ROOT_JNI_GLOBAL: {
        const uint64_t *t = hp_idmap_get(&c->traces, s->id);
        fprintf(out, "<JNI global ref>, id=%" PRIx64 ", trace=%u)\n", s->ref, t ? (uint32_t)*t : 0);
        return;
    }
    case HP_ROOT_STICKY_CLASS:
        name_of(c, s->id, name, sizeof name);
        fprintf(out, "<system class>, name=%s)\n", name);
        return;
    case HP_ROOT_MONITOR_USED:
        fputs("<busy monitor>)\n", out);
        return;
    case HP_ROOT_JAVA_FRAME:
        fprintf(out, "<Java stack>, thread=%u, frame=%d)\n", s->thread, (int32_t)s->depth);
        return;
    case HP_ROOT_JNI_LOCAL:
        fprintf(out, "<JNI local ref>, thread=%u, frame=%d)\n", s->thread, (int32_t)s->depth);
        return;
    case HP_ROOT_THREAD_OBJECT:
        fprintf(out, "<thread>, id=%u, trace=%u)\n", s->thread, s->depth);
        return;
    case HP_ROOT_THREAD_BLOCK:
        fprintf(out, "<thread block>, thread=%u)\n", s->thread);
        return;
    case HP_ROOT_NATIVE_STACK:
        fprintf(out, "<native stack>, thread=%u)\n", s->thread);
        return;
    case HP_ROOT_JNI_MONITOR:
        fprintf(out, "<JNI monitor>, thread=%u, frame=%d)\n", s->thread, (int32_t)s->depth);
        return;
    case HP_ROOT_INTERNED_STRING:
        fputs("<interned string>)\n", out);
        return;
    case HP_ROOT_FINALIZING:
        fputs("<finalizing>)\n", out);
        return;
    case HP_ROOT_DEBUGGER:
        fputs("<debugger>)\n", out);
        return;
    case HP_ROOT_REFERENCE_CLEANUP:
        fputs("<reference cleanup>)\n", out);
        return;
    case HP_ROOT_VM_INTERNAL:
        fputs("<VM internal>)\n", out);
        return;
    case HP_ROOT_UNREACHABLE:
        fputs("<unreachable>)\n", out);
        return;
    default:
        fputs("<unknown>)\n", out);
        return;
    }
}

/* "\tname\t[\t]id": a second tab aligns names shorter than 8 characters. */
static void ref_line(FILE *out, const char *name, uint64_t id)
{
    fprintf(out, "\t%s\t%s%" PRIx64 "\n", name, strlen(name) < 8 ? "\t" : "", id);
}

/* Values are stored class first, supers after; the listing wants supers first. */
static void instance_fields(ctx_t *c, const hp_sub *s, const hp_class *k)
{
    enum { MAX_DEPTH = 256 };
    const hp_class *chain[MAX_DEPTH];
    const uint8_t *vals[MAX_DEPTH];
    const hp_file *f = c->ix->f;
    size_t n = 0;
    const uint8_t *v = s->data;
    for (; k && n < MAX_DEPTH && n < c->classes.n; n++) {
        chain[n] = k;
        vals[n] = v;
        v += (uint64_t)k->own_refs * f->id_size + k->own_prim_bytes;
        k = k->super ? hp_classes_get(&c->classes, k->super) : NULL;
    }
    while (n-- > 0) {
        // cppcheck-suppress uninitvar ; chain[0..n) and vals[0..n) were filled above
        const uint8_t *p = chain[n]->fields, *val = vals[n];
        for (unsigned i = 0; i < chain[n]->nfields; i++) {
            hp_field fl;
            char name[256];
            hp_next_field(f, &p, &fl);
            if (fl.type == HP_T_OBJECT && hp_id(f, val) != 0)
                ref_line(c->out, hp_index_cstring(c->ix, fl.name_id, name, sizeof name, "?"),
                         hp_id(f, val));
            val += hp_type_size(fl.type, f->id_size);
        }
    }
}

static void instance(ctx_t *c, const hp_sub *s)
{
    const hp_file *f = c->ix->f;
    hp_class *k = hp_classes_get(&c->classes, s->ref);
    int layout_ok = k && hp_class_layout(&c->classes, k) == 0 &&
                    hp_class_field_bytes(k, f->id_size) == s->data_len;
    uint64_t size = layout_ok ? hp_instance_bytes(c->m, f->id_size, k->refs, k->prim_bytes)
                              : hp_instance_bytes(c->m, f->id_size, 0, s->data_len);
    char name[512];
    name_of(c, s->ref, name, sizeof name);
    fprintf(c->out, "OBJ %" PRIx64 " (sz=%" PRIu64 ", trace=%u, class=%s@%" PRIx64 ")\n", s->id,
            size, s->trace, name, s->ref);
    if (layout_ok) instance_fields(c, s, k);
}

static void class_dump(ctx_t *c, const hp_sub *s)
{
    const hp_file *f = c->ix->f;
    FILE *out = c->out;
    char name[512];
    hp_field fl;
    name_of(c, s->id, name, sizeof name);
    fprintf(out, "CLS %" PRIx64 " (name=%s, trace=%u)\n", s->id, name, s->trace);
    if (s->ref) ref_line(out, "super", s->ref);
    if (s->loader) ref_line(out, "loader", s->loader);
    if (s->signers) ref_line(out, "signers", s->signers);
    if (s->domain) ref_line(out, "domain", s->domain);
    const uint8_t *p = s->statics;
    for (unsigned i = 0; i < s->nstatics; i++) {
        hp_next_static(f, &p, &fl);
        if (fl.type == HP_T_OBJECT && fl.value)
            fprintf(out, "\tstatic %s\t%" PRIx64 "\n",
                    hp_index_cstring(c->ix, fl.name_id, name, sizeof name, "?"), fl.value);
    }
    p = s->cp;
    for (unsigned i = 0; i < s->ncp; i++) {
        hp_next_cp(f, &p, &fl);
        if (fl.type == HP_T_OBJECT && fl.value)
            fprintf(out, "\tconstant pool entry %u\t%" PRIx64 "\n", fl.cp_index, fl.value);
    }
}

static int line(void *vc, const hp_sub *s, hp_error *err)
{
    ctx_t *c = vc;
    const hp_file *f = c->ix->f;
    char name[512];
    (void)err;
    switch (s->tag) {
    case HP_INSTANCE_DUMP:
        instance(c, s);
        break;
    case HP_CLASS_DUMP:
        class_dump(c, s);
        break;
    case HP_OBJ_ARRAY_DUMP:
        name_of(c, s->ref, name, sizeof name);
        fprintf(c->out,
                "ARR %" PRIx64 " (sz=%" PRIu64 ", trace=%u, nelems=%u, elem type=%s@%" PRIx64 ")\n",
                s->id, hp_array_bytes(c->m, f->id_size, 0, s->count), s->trace, s->count, name,
                s->ref);
        for (uint32_t i = 0; i < s->count; i++) {
            uint64_t e = hp_id(f, s->data + (uint64_t)i * f->id_size);
            if (e) fprintf(c->out, "\t[%u]\t\t%" PRIx64 "\n", i, e);
        }
        break;
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA:
        fprintf(c->out, "ARR %" PRIx64 " (sz=%" PRIu64 ", trace=%u, nelems=%u, elem type=%s[])\n",
                s->id, hp_array_bytes(c->m, f->id_size, hp_type_size(s->elem_type, 0), s->count),
                s->trace, s->count, hp_type_name(s->elem_type));
        break;
    case HP_HEAP_DUMP_INFO:
        break;
    default:
        root(c, s);
        break;
    }
    return 0;
}

int hp_print_heap(FILE *out, const hp_index *ix, size_t d, const hp_model *m, hp_error *err)
{
    hp_histo h;
    ctx_t c = {.out = out, .ix = ix, .m = m};
    char when[64];
    hp_record r;
    hp_rec o;
    int rc = hp_histo_build(&h, ix, d, m, err);
    if (rc == 0) rc = hp_classes_build(&c.classes, ix, d, err);
    if (rc == 0) rc = hp_dump_walk(ix, d, gather_traces, &c, err);
    c.filling = 1;
    if (rc == 0 && c.traces.len) rc = hp_dump_walk(ix, d, gather_traces, &c, err);
    if (rc == 0) {
        hp_index_record(ix, ix->dumps[d].records[0], &r, &o);
        hp_record_ctime(ix->f, r.time, when);
        fprintf(out, "HEAP DUMP BEGIN (%" PRIu64 " objects, %" PRIu64 " bytes) %s", h.instances,
                h.bytes, when);
        rc = hp_dump_walk(ix, d, line, &c, err);
        fputs("HEAP DUMP END\n", out);
    }
    hp_histo_free(&h);
    hp_classes_free(&c.classes);
    hp_idmap_free(&c.traces);
    return rc;
}
