#include "cli/analyses/histo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hp_histo *h;
    const hp_file *f;
    const hp_model *m;
    hp_classes classes;
    hp_idmap by_class; /* class id -> row index + 1 (0 reserved for "none") */
    size_t prim_row[HP_T_LONG + 1];
    size_t cap;
} ctx_t;

static hp_histo_row *row_for(ctx_t *c, uint64_t class_id, uint8_t prim, hp_error *err,
                             uint64_t offset)
{
    size_t *slot = prim ? &c->prim_row[prim] : NULL;
    const uint64_t *found = prim ? NULL : hp_idmap_get(&c->by_class, class_id);
    if (slot && *slot) return &c->h->rows[*slot - 1];
    if (found) return &c->h->rows[*found - 1];
    if (c->h->nrows == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        hp_histo_row *n = realloc(c->h->rows, cap * sizeof *n);
        if (!n) return hp_fail(err, offset, "out of memory"), NULL;
        c->h->rows = n;
        c->cap = cap;
    }
    hp_histo_row *r = &c->h->rows[c->h->nrows++];
    *r = (hp_histo_row){class_id, prim, 0, 0, 0};
    if (slot)
        *slot = c->h->nrows;
    else if (hp_idmap_put(&c->by_class, class_id, c->h->nrows) < 0)
        return hp_fail(err, offset, "out of memory"), NULL;
    return r;
}

static int on_sub(void *vc, const hp_sub *s, hp_error *err)
{
    ctx_t *c = vc;
    hp_histo_row *r;
    uint64_t bytes;
    switch (s->tag) {
    case HP_INSTANCE_DUMP:
        r = row_for(c, s->ref, 0, err, s->offset);
        bytes = hp_object_size(&c->classes, c->m, c->f->id_size, s);
        c->h->plain++;
        break;
    case HP_OBJ_ARRAY_DUMP:
        r = row_for(c, s->ref, 0, err, s->offset);
        bytes = hp_object_size(&c->classes, c->m, c->f->id_size, s);
        c->h->obj_arrays++;
        break;
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA:
        r = row_for(c, 0, s->elem_type, err, s->offset);
        bytes = hp_object_size(&c->classes, c->m, c->f->id_size, s);
        c->h->prim_arrays++;
        break;
    case HP_CLASS_DUMP:
        c->h->classes++;
        return 0;
    case HP_HEAP_DUMP_INFO:
        return 0;
    default:
        c->h->roots++;
        c->h->thread_roots += s->tag == HP_ROOT_THREAD_OBJECT;
        return 0;
    }
    if (!r) return -1;
    r->count++;
    r->bytes += bytes;
    c->h->instances++;
    c->h->bytes += bytes;
    return 0;
}

int hp_histo_build(hp_histo *h, const hp_index *ix, size_t d, const hp_model *m, hp_error *err)
{
    memset(h, 0, sizeof *h);
    ctx_t c = {.h = h, .f = ix->f, .m = m};
    int rc = hp_classes_build(&c.classes, ix, d, err);
    if (rc == 0) rc = hp_dump_walk(ix, d, on_sub, &c, err);
    hp_classes_free(&c.classes);
    hp_idmap_free(&c.by_class);
    return rc;
}

void hp_histo_free(hp_histo *h)
{
    free(h->rows);
    memset(h, 0, sizeof *h);
}

void hp_histo_row_name(const hp_index *ix, const hp_histo_row *row, char *buf, size_t cap)
{
    if (row->prim_type)
        snprintf(buf, cap, "%s[]", hp_type_name(row->prim_type));
    else
        hp_index_class_name(ix, row->class_id, buf, cap);
}

uint64_t hp_object_size(const hp_classes *c, const hp_model *m, uint32_t id_size, const hp_sub *s)
{
    switch (s->tag) {
    case HP_INSTANCE_DUMP: {
        /* Without a usable CLASS DUMP the payload counts as primitives. */
        hp_class *k = hp_classes_get(c, s->ref);
        if (k && hp_class_layout(c, k) == 0 && hp_class_field_bytes(k, id_size) == s->data_len)
            return hp_instance_bytes(m, id_size, k->refs, k->prim_bytes);
        return hp_instance_bytes(m, id_size, 0, s->data_len);
    }
    case HP_OBJ_ARRAY_DUMP:
        return hp_array_bytes(m, id_size, 0, s->count);
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA:
        return hp_array_bytes(m, id_size, hp_type_size(s->elem_type, 0), s->count);
    default:
        return 0; /* class objects are not counted as instances */
    }
}
