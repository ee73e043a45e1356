#include "cli/readers/classes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    hp_classes *c;
    const hp_file *f;
    size_t cap;
} build_ctx;

static int on_sub(void *ctx, const hp_sub *s, hp_error *err)
{
    build_ctx *b = ctx;
    hp_classes *c = b->c;
    if (s->tag != HP_CLASS_DUMP) return 0;
    if (hp_idmap_get(&c->by_id, s->id)) {
        if (c->dup_offset == UINT64_MAX) c->dup_offset = s->offset;
        return 0;
    }
    if (c->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        hp_class *v = realloc(c->v, cap * sizeof *v);
        if (!v) return hp_fail(err, s->offset, "out of memory");
        c->v = v;
        b->cap = cap;
    }
    hp_class *k = &c->v[c->n];
    memset(k, 0, sizeof *k);
    k->id = s->id;
    k->super = s->ref;
    k->offset = s->offset;
    k->fields = s->fields;
    k->nfields = s->nfields;
    const uint8_t *p = s->fields;
    for (unsigned i = 0; i < s->nfields; i++) {
        hp_field fl;
        hp_next_field(b->f, &p, &fl);
        if (fl.type == HP_T_OBJECT)
            k->own_refs++;
        else
            k->own_prim_bytes += hp_type_size(fl.type, b->f->id_size);
    }
    if (hp_idmap_put(&c->by_id, s->id, c->n) < 0) return hp_fail(err, s->offset, "out of memory");
    c->n++;
    return 0;
}

int hp_classes_build(hp_classes *c, const hp_index *ix, size_t dump, hp_error *err)
{
    memset(c, 0, sizeof *c);
    c->dup_offset = UINT64_MAX;
    build_ctx b = {c, ix->f, 0};
    return hp_dump_walk(ix, dump, on_sub, &b, err);
}

int hp_classes_from_offsets(hp_classes *c, const hp_index *ix, const uint64_t *offsets, size_t n,
                            hp_error *err)
{
    memset(c, 0, sizeof *c);
    c->dup_offset = UINT64_MAX;
    build_ctx b = {c, ix->f, 0};
    for (size_t i = 0; i < n; i++) {
        hp_sub s;
        if (hp_sub_at(ix->f, offsets[i], &s, err) != 1 || s.tag != HP_CLASS_DUMP)
            return hp_fail(err, offsets[i], "no CLASS DUMP where the index says");
        if (on_sub(&b, &s, err) != 0) return -1;
    }
    return 0;
}

void hp_classes_free(hp_classes *c)
{
    free(c->v);
    hp_idmap_free(&c->by_id);
    memset(c, 0, sizeof *c);
}

hp_class *hp_classes_get(const hp_classes *c, uint64_t id)
{
    const uint64_t *i = hp_idmap_get(&c->by_id, id);
    return i ? &c->v[*i] : NULL;
}

int hp_class_layout(const hp_classes *c, hp_class *k)
{
    if (k->layout_state != 0) return k->layout_state > 0 ? 0 : -1;
    uint64_t refs = 0, prim = 0;
    int state = 1;
    size_t steps = 0;
    for (const hp_class *p = k; p; p = p->super ? hp_classes_get(c, p->super) : NULL) {
        /* More links than classes means the chain loops. */
        if (++steps > c->n) {
            state = -1;
            break;
        }
        refs += p->own_refs;
        prim += p->own_prim_bytes;
        if (p->super && !hp_classes_get(c, p->super)) state = -1;
    }
    k->refs = refs;
    k->prim_bytes = prim;
    k->layout_state = state;
    return state > 0 ? 0 : -1;
}

int64_t hp_class_field_offset(const hp_classes *c, const hp_index *ix, const hp_class *k,
                              const char *name, uint8_t *type)
{
    const hp_file *f = ix->f;
    size_t want = strlen(name);
    uint64_t off = 0;
    for (size_t steps = 0; k && steps < c->n; steps++) {
        const uint8_t *p = k->fields;
        for (unsigned i = 0; i < k->nfields; i++) {
            hp_field fl;
            const uint8_t *chars;
            uint32_t len;
            hp_next_field(f, &p, &fl);
            if (hp_index_string(ix, fl.name_id, &chars, &len) && len == want &&
                memcmp(chars, name, want) == 0) {
                *type = fl.type;
                return (int64_t)off;
            }
            off += hp_type_size(fl.type, f->id_size);
        }
        k = k->super ? hp_classes_get(c, k->super) : NULL;
    }
    return -1;
}

int hp_instance_field(const hp_classes *c, const hp_index *ix, const hp_sub *s, const char *name,
                      uint8_t *type, uint64_t *value)
{
    const hp_file *f = ix->f;
    hp_class *k = hp_classes_get(c, s->ref);
    if (!k || hp_class_layout(c, k) != 0 || hp_class_field_bytes(k, f->id_size) != s->data_len)
        return 0;
    int64_t off = hp_class_field_offset(c, ix, k, name, type);
    if (off < 0) return 0;
    *value = hp_value(s->data + off, hp_type_size(*type, f->id_size));
    return 1;
}
