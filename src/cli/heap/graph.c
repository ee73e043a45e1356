#include "cli/heap/graph.h"

#include "cli/heap/bigarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analyses/histo.h"

/* Reference types whose `referent` does not keep an object alive (with subclasses). */
static const char *const weak_classes[] = {
    "java.lang.ref.WeakReference", "java.lang.ref.SoftReference", "java.lang.ref.FinalReference",
    "java.lang.ref.PhantomReference"};

static int class_is(const hp_graph *g, uint64_t class_id, const char *name)
{
    char buf[256];
    hp_index_class_name(g->ix, class_id, buf, sizeof buf);
    return strcmp(buf, name) == 0;
}

static int is_weak_class(const hp_graph *g, const hp_class *k)
{
    for (size_t steps = 0; k && steps <= g->classes.n; steps++) {
        for (size_t i = 0; i < sizeof weak_classes / sizeof weak_classes[0]; i++)
            if (class_is(g, k->id, weak_classes[i])) return 1;
        k = k->super ? hp_classes_get(&g->classes, k->super) : NULL;
    }
    return 0;
}

static int field_named(const hp_graph *g, uint64_t name_id, const char *name)
{
    const uint8_t *s;
    uint32_t len;
    return hp_index_string(g->ix, name_id, &s, &len) && len == strlen(name) &&
           memcmp(s, name, len) == 0;
}

/* Appends the reference-field offsets of class k (own fields, then supers'). */
static int layout_class(hp_graph *g, size_t ci, size_t *cap)
{
    hp_class *k = &g->classes.v[ci];
    hp_ref_layout *l = &g->layouts[ci];
    int weak = is_weak_class(g, k);
    l->count = 0;
    l->referent = -1;
    l->first = ci > 0 ? g->layouts[ci - 1].first + g->layouts[ci - 1].count : 0;
    l->usable = hp_class_layout(&g->classes, k) == 0;
    if (!l->usable) return 0;
    uint32_t off = 0, id_size = g->ix->f->id_size;
    for (const hp_class *c = k; c; c = c->super ? hp_classes_get(&g->classes, c->super) : NULL) {
        int is_reference = weak && class_is(g, c->id, "java.lang.ref.Reference");
        const uint8_t *p = c->fields;
        for (unsigned i = 0; i < c->nfields; i++) {
            hp_field fl;
            hp_next_field(g->ix->f, &p, &fl);
            if (fl.type == HP_T_OBJECT) {
                size_t at = l->first + l->count;
                if (at == *cap) {
                    size_t ncap = *cap ? *cap * 2 : 1024;
                    uint32_t *n = realloc(g->ref_offsets, ncap * sizeof *n);
                    if (!n) return -1;
                    g->ref_offsets = n;
                    *cap = ncap;
                }
                if (is_reference && field_named(g, fl.name_id, "referent"))
                    l->referent = (int32_t)off;
                g->ref_offsets[at] = off;
                l->count++;
            }
            off += hp_type_size(fl.type, id_size);
        }
    }
    return 0;
}

static int build_layouts(hp_graph *g, hp_error *err)
{
    size_t cap = 0;
    g->layouts = calloc(g->classes.n ? g->classes.n : 1, sizeof *g->layouts);
    if (!g->layouts) return hp_fail(err, 0, "out of memory");
    for (size_t i = 0; i < g->classes.n; i++)
        if (layout_class(g, i, &cap) != 0) return hp_fail(err, 0, "out of memory");
    return 0;
}

/* Edge passes: `fill` 0 counts candidate references per object (and records
 * offsets and roots), 1 stores them. A duplicate ID keeps its first sub-record. */
typedef struct {
    hp_graph *g;
    int fill;
    size_t roots_cap;
    uint8_t *seen; /* fill pass: objects whose sub-record was taken */
    uint32_t last; /* the previous object's index: the next one's likely neighbour */
} pass_ctx;

static void emit(pass_ctx *c, uint32_t src, uint32_t *slot, uint64_t id, int weak)
{
    if (id == 0) return;
    if (!c->fill) {
        c->g->out_start[src + 1]++;
        return;
    }
    uint32_t t = hp_objects_find(&c->g->obj, id);
    if (t != HP_NO_OBJECT) c->g->out[c->g->out_start[src] + *slot] = t | (weak ? HP_WEAK_EDGE : 0);
    ++*slot;
}

static void instance_edges(pass_ctx *c, uint32_t src, const hp_sub *s)
{
    hp_graph *g = c->g;
    hp_class *k = hp_classes_get(&g->classes, s->ref);
    uint32_t id_size = g->ix->f->id_size, slot = 0;
    if (!k || hp_class_field_bytes(k, id_size) != s->data_len) return;
    const hp_ref_layout *l = &g->layouts[k - g->classes.v];
    if (!l->usable) return;
    for (uint32_t i = 0; i < l->count; i++) {
        uint32_t off = g->ref_offsets[l->first + i];
        emit(c, src, &slot, hp_id(g->ix->f, s->data + off), (int32_t)off == l->referent);
    }
}

static int add_root(pass_ctx *c, const hp_sub *s, hp_error *err)
{
    hp_graph *g = c->g;
    uint32_t t = hp_objects_find(&g->obj, s->id);
    if (t == HP_NO_OBJECT) return 0;
    if (g->nroots == c->roots_cap) {
        size_t cap = c->roots_cap ? c->roots_cap * 2 : 1024;
        hp_root *n = realloc(g->roots, cap * sizeof *n);
        if (!n) return hp_fail(err, s->offset, "out of memory");
        g->roots = n;
        c->roots_cap = cap;
    }
    g->roots[g->nroots++] = (hp_root){t, s->tag};
    return 0;
}

/* Whether this is the first sub-record of its object (marking it taken). */
static int first_of(pass_ctx *c, uint32_t src, const hp_sub *s)
{
    if (src == HP_NO_OBJECT) return 0;
    if (!c->fill) {
        if (c->g->obj.offsets[src]) return 0; /* offset 0 is the file header, never a sub-record */
        c->g->obj.offsets[src] = s->offset;
        return 1;
    }
    if (c->seen[src >> 3] >> (src & 7) & 1) return 0;
    c->seen[src >> 3] |= (uint8_t)(1u << (src & 7));
    return 1;
}

static uint32_t classof(const hp_graph *g, const hp_sub *s)
{
    if (s->tag == HP_CLASS_DUMP) return HP_CLASSOF_CLASS;
    if (s->tag == HP_PRIM_ARRAY_DUMP || s->tag == HP_PRIM_ARRAY_NODATA)
        return HP_CLASSOF_PRIM_ARRAY | s->elem_type;
    const hp_class *k = hp_classes_get(&g->classes, s->ref);
    size_t at = k ? (size_t)(k - g->classes.v) : HP_CLASSOF_UNKNOWN;
    if (at > HP_CLASSOF_UNKNOWN) at = HP_CLASSOF_UNKNOWN;
    return (s->tag == HP_OBJ_ARRAY_DUMP ? HP_CLASSOF_OBJ_ARRAY : HP_CLASSOF_INSTANCE) |
           (uint32_t)at;
}

static int on_sub(void *ctx, const hp_sub *s, hp_error *err)
{
    pass_ctx *c = ctx;
    hp_graph *g = c->g;
    if (!hp_is_object_sub(s->tag)) {
        int root = s->tag != HP_HEAP_DUMP_INFO;
        return root && !c->fill ? add_root(c, s, err) : 0;
    }
    uint32_t src = hp_objects_find_near(&g->obj, s->id, c->last + 1), slot = 0;
    c->last = src;
    if (!first_of(c, src, s)) return 0;
    if (c->fill) {
        uint64_t size = hp_object_size(&g->classes, g->model, g->ix->f->id_size, s);
        g->shallow[src] = size < UINT32_MAX ? (uint32_t)size : UINT32_MAX;
        g->classof[src] = classof(g, s);
    }
    if (s->tag == HP_INSTANCE_DUMP) {
        instance_edges(c, src, s);
    } else if (s->tag == HP_OBJ_ARRAY_DUMP) {
        for (uint32_t i = 0; i < s->count; i++)
            emit(c, src, &slot, hp_id(g->ix->f, s->data + (uint64_t)i * g->ix->f->id_size), 0);
    } else if (s->tag == HP_CLASS_DUMP) {
        const uint8_t *p = s->statics;
        for (unsigned i = 0; i < s->nstatics; i++) {
            hp_field fl;
            hp_next_static(g->ix->f, &p, &fl);
            if (fl.type == HP_T_OBJECT) emit(c, src, &slot, fl.value, 0);
        }
    }
    return 0;
}

/* Drops the slots of references to objects that are not in the dump. */
static void compact_edges(hp_graph *g)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < g->obj.n; i++) {
        uint32_t s = g->out_start[i], e = g->out_start[i + 1];
        g->out_start[i] = w;
        for (uint32_t j = s; j < e; j++)
            if (g->out[j] != HP_NO_OBJECT) g->out[w++] = g->out[j];
    }
    g->out_start[g->obj.n] = w;
    g->nedges = w;
}

/* Counting pass: sub-record offsets, references per object, GC roots. */
static int count_edges(hp_graph *g, hp_spill *sp, hp_error *err)
{
    pass_ctx c = {g, 0, 0, NULL, 0};
    g->out_start = hp_big_calloc(((size_t)g->obj.n + 1) * sizeof *g->out_start);
    g->obj.offsets = hp_big_calloc(((size_t)g->obj.n + 1) * sizeof *g->obj.offsets);
    if (!g->out_start || !g->obj.offsets) return hp_fail(err, 0, "out of memory");
    if (hp_dump_walk(g->ix, g->dump, on_sub, &c, err) != 0) return -1;
    uint64_t total = 0;
    for (uint32_t i = 0; i <= g->obj.n; i++) {
        total += g->out_start[i];
        if (total >= HP_NO_OBJECT) return hp_fail(err, 0, "more than 2^32 references");
        g->out_start[i] = (uint32_t)total;
    }
    if (hp_spill_put(sp, HP_SEC_OFFSETS, &g->obj.offsets, (size_t)g->obj.n * 8) != 0)
        return hp_fail(err, 0, "cannot write the index");
    return 0;
}

static int build_edges(hp_graph *g, hp_spill *sp, hp_error *err)
{
    if (count_edges(g, sp, err) != 0) return -1;
    pass_ctx c = {g, 1, 0, calloc((size_t)g->obj.n / 8 + 1, 1), 0};
    uint32_t total = g->out_start[g->obj.n];
    g->out = hp_big_malloc((total ? total : 1) * sizeof *g->out);
    g->shallow = hp_big_malloc(((size_t)g->obj.n + 1) * sizeof *g->shallow);
    g->classof = hp_big_calloc(((size_t)g->obj.n + 1) * sizeof *g->classof);
    if (!g->out || !g->shallow || !g->classof || !c.seen) {
        free(c.seen);
        return hp_fail(err, 0, "out of memory");
    }
    memset(g->shallow, 0xff, ((size_t)g->obj.n + 1) * sizeof *g->shallow);
    memset(g->out, 0xff, total * sizeof *g->out);
    int rc = hp_dump_walk(g->ix, g->dump, on_sub, &c, err);
    free(c.seen);
    if (rc != 0) return -1;
    compact_edges(g);
    uint32_t *shrunk = realloc(g->out, (g->nedges ? g->nedges : 1) * sizeof *g->out);
    if (shrunk) g->out = shrunk;
    /* The dominators need only the edges and roots from here on. */
    hp_objects *o = &g->obj;
    if (hp_spill_put(sp, HP_SEC_KEYS, &o->keys, (size_t)o->n * 4) != 0 ||
        hp_spill_put(sp, HP_SEC_SEGS, &o->segs, (size_t)o->nsegs * sizeof *o->segs) != 0 ||
        hp_spill_put(sp, HP_SEC_DIR, &o->dir, (size_t)o->dir_len * 4) != 0 ||
        hp_spill_put(sp, HP_SEC_SHALLOW, &g->shallow, (size_t)o->n * 4) != 0 ||
        hp_spill_put(sp, HP_SEC_CLASSOF, &g->classof, (size_t)o->n * 4) != 0 ||
        hp_spill_save(sp, HP_SEC_OUT_START, g->out_start, ((size_t)o->n + 1) * 4) != 0 ||
        hp_spill_save(sp, HP_SEC_OUT, g->out, (size_t)g->nedges * 4) != 0)
        return hp_fail(err, 0, "cannot write the index");
    return 0;
}

/* The first pass: every object's ID, and where the CLASS DUMPs are. */
typedef struct {
    uint64_t *ids, *classes;
    size_t n, cap, nclasses, classes_cap;
} id_list;

static int grow(uint64_t **v, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap * 2 : 4096;
    uint64_t *p = hp_big_realloc(*v, n * sizeof *p);
    if (!p) return -1;
    *v = p;
    *cap = n;
    return 0;
}

static int collect_ids(void *ctx, const hp_sub *s, hp_error *err)
{
    id_list *l = ctx;
    if (!hp_is_object_sub(s->tag)) return 0;
    if (grow(&l->ids, &l->cap, l->n + 1) != 0) return hp_fail(err, s->offset, "out of memory");
    l->ids[l->n++] = s->id;
    if (s->tag != HP_CLASS_DUMP) return 0;
    if (grow(&l->classes, &l->classes_cap, l->nclasses + 1) != 0)
        return hp_fail(err, s->offset, "out of memory");
    l->classes[l->nclasses++] = s->offset;
    return 0;
}

static int number_objects(hp_graph *g, hp_error *err)
{
    id_list l = {0};
    int rc = hp_dump_walk(g->ix, g->dump, collect_ids, &l, err);
    if (rc == 0) rc = hp_classes_from_offsets(&g->classes, g->ix, l.classes, l.nclasses, err);
    free(l.classes);
    if (rc != 0) {
        free(l.ids);
        return -1;
    }
    return hp_objects_from_ids(&g->obj, l.ids, l.n, err);
}

int hp_graph_build(hp_graph *g, const hp_index *ix, size_t dump, const hp_model *m, hp_spill *sp,
                   hp_error *err)
{
    memset(g, 0, sizeof *g);
    g->ix = ix;
    g->dump = dump;
    g->model = m;
    if (number_objects(g, err) != 0 || build_layouts(g, err) != 0 || build_edges(g, sp, err) != 0)
        return -1;
    return 0;
}

int hp_graph_classes_from(hp_graph *g, const hp_index *ix, size_t dump, const hp_model *m,
                          const uint64_t *class_offsets, size_t n, hp_error *err)
{
    memset(g, 0, sizeof *g);
    g->ix = ix;
    g->dump = dump;
    g->model = m;
    g->borrowed = 1;
    if (hp_classes_from_offsets(&g->classes, ix, class_offsets, n, err) != 0 ||
        build_layouts(g, err) != 0)
        return -1;
    return 0;
}

void hp_graph_free(hp_graph *g)
{
    hp_classes_free(&g->classes);
    free(g->layouts);
    free(g->ref_offsets);
    if (!g->borrowed) {
        hp_objects_free(&g->obj);
        free(g->out_start);
        free(g->out);
        free(g->shallow);
        free(g->classof);
        free(g->roots);
    }
    memset(g, 0, sizeof *g);
}

void hp_graph_object(const hp_graph *g, uint32_t i, hp_sub *s)
{
    /* The sub-record was bounds-checked inside its record when the graph was built. */
    hp_error ignored;
    if (hp_sub_at(g->ix->f, g->obj.offsets[i], s, &ignored) != 1) memset(s, 0, sizeof *s);
}

uint64_t hp_graph_size_at(const hp_graph *g, uint64_t offset)
{
    hp_sub s;
    hp_error ignored;
    if (hp_sub_at(g->ix->f, offset, &s, &ignored) != 1) return 0;
    return hp_object_size(&g->classes, g->model, g->ix->f->id_size, &s);
}

uint64_t hp_graph_shallow(const hp_graph *g, uint32_t i)
{
    return g->shallow[i] != UINT32_MAX ? g->shallow[i] : hp_graph_size_at(g, g->obj.offsets[i]);
}

void hp_graph_class_name(const hp_graph *g, uint32_t i, char *buf, size_t cap)
{
    hp_sub s;
    hp_graph_object(g, i, &s);
    if (s.tag == HP_CLASS_DUMP)
        snprintf(buf, cap, "java.lang.Class");
    else if (s.tag == HP_PRIM_ARRAY_DUMP || s.tag == HP_PRIM_ARRAY_NODATA)
        snprintf(buf, cap, "%s[]", hp_type_name(s.elem_type));
    else
        hp_index_class_name(g->ix, s.ref, buf, cap);
}
