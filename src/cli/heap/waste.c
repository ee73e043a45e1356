#include "heap/waste.h"

#include <stdlib.h>
#include <string.h>

#include "histo.h"

enum { K_OTHER, K_STRING, K_ARRAYLIST, K_HASHMAP, K_HASHSET, K_BOX };

typedef struct {
    uint8_t kind, box_bytes;
    int32_t a, b; /* field offsets: String value/coder, ArrayList size/elementData,
                     HashMap size/table, HashSet map, box value; -1 if absent */
} class_kind;

typedef struct {
    uint64_t hash;
    uint32_t string, array;
} string_entry;

typedef struct {
    const hp_heap *h;
    hp_waste *w;
    class_kind *kinds; /* parallel to classes.v */
    uint8_t *backing;  /* bitmap: arrays behind an ArrayList or HashMap */
    string_entry *strings;
    size_t nstrings, cap;
    unsigned ref; /* reference size under the model */
} scan;

static const struct {
    const char *name;
    uint8_t kind, box_bytes;
    const char *a, *b;
} known[] = {
    {"java.lang.String", K_STRING, 0, "value", "coder"},
    {"java.util.ArrayList", K_ARRAYLIST, 0, "size", "elementData"},
    {"java.util.HashMap", K_HASHMAP, 0, "size", "table"},
    {"java.util.LinkedHashMap", K_HASHMAP, 0, "size", "table"},
    {"java.util.HashSet", K_HASHSET, 0, "map", NULL},
    {"java.util.LinkedHashSet", K_HASHSET, 0, "map", NULL},
    {"java.lang.Integer", K_BOX, 4, "value", NULL},
    {"java.lang.Long", K_BOX, 8, "value", NULL},
    {"java.lang.Short", K_BOX, 2, "value", NULL},
    {"java.lang.Byte", K_BOX, 1, "value", NULL},
    {"java.lang.Character", K_BOX, 2, "value", NULL},
    {"java.lang.Boolean", K_BOX, 1, "value", NULL},
    {"java.lang.Float", K_BOX, 4, "value", NULL},
    {"java.lang.Double", K_BOX, 8, "value", NULL},
};

const char *hp_waste_kind_name(int kind)
{
    static const char *const names[] = {"duplicate strings",
                                        "empty collections (ArrayList, HashMap, HashSet)",
                                        "over-sized backing arrays of ArrayList and HashMap",
                                        "zero-length arrays beyond one per type",
                                        "Object[] of 16+ elements, 3/4 or more null",
                                        "boxed primitives (header and padding over the value)"};
    return names[kind];
}

/* Byte offset of instance field `name` in the data of class k's instances, or -1. */
static int32_t field_offset(const hp_heap *h, const hp_class *k, const char *name)
{
    uint8_t type;
    return name ? (int32_t)hp_class_field_offset(&h->g.classes, &h->ix, k, name, &type) : -1;
}

static int classify(scan *c)
{
    const hp_graph *g = &c->h->g;
    c->kinds = calloc(g->classes.n + 1, sizeof *c->kinds);
    if (!c->kinds) return -1;
    for (size_t i = 0; i < g->classes.n; i++) {
        char name[256];
        hp_class *k = &g->classes.v[i];
        hp_index_class_name(&c->h->ix, k->id, name, sizeof name);
        for (size_t j = 0; j < sizeof known / sizeof known[0]; j++) {
            if (strcmp(name, known[j].name) != 0 || hp_class_layout(&g->classes, k) != 0) continue;
            class_kind ck = {known[j].kind, known[j].box_bytes, field_offset(c->h, k, known[j].a),
                             field_offset(c->h, k, known[j].b)};
            if (ck.a >= 0) c->kinds[i] = ck;
        }
    }
    return 0;
}

static void add(scan *c, int kind, uint32_t obj, uint64_t bytes)
{
    hp_waste_kind *k = &c->w->kinds[kind];
    k->count++;
    k->bytes += bytes;
    if (k->sample == HP_NO_OBJECT || bytes > k->sample_bytes) {
        k->sample = obj;
        k->sample_bytes = bytes;
    }
}

/* Reads a field at `off` of an instance whose layout matched its class. */
static uint64_t field_at(const hp_sub *s, int32_t off, unsigned size)
{
    if (off < 0 || (uint64_t)off + size > s->data_len) return 0;
    return hp_value(s->data + off, size);
}

/* The array an instance's reference field points to: its index and length. */
static uint32_t array_of(const scan *c, uint64_t id, uint32_t *len)
{
    uint32_t a = id ? hp_objects_find(&c->h->g.obj, id) : HP_NO_OBJECT;
    hp_sub s;
    *len = 0;
    if (a == HP_NO_OBJECT) return a;
    hp_graph_object(&c->h->g, a, &s);
    if (s.tag != HP_OBJ_ARRAY_DUMP && s.tag != HP_PRIM_ARRAY_DUMP) return HP_NO_OBJECT;
    *len = s.count;
    return a;
}

static void collection(scan *c, uint32_t obj, const hp_sub *s, const class_kind *k)
{
    uint32_t id_size = c->h->ix.f->id_size, len;
    uint64_t size = field_at(s, k->a, 4);
    uint32_t arr = array_of(c, field_at(s, k->b, id_size), &len);
    if (arr != HP_NO_OBJECT) c->backing[arr >> 3] |= (uint8_t)(1u << (arr & 7));
    if (size == 0) {
        add(c, HP_WASTE_EMPTY_COLLECTIONS, obj, hp_dom_retained(&c->h->d, obj));
        return;
    }
    uint64_t need = size;
    if (k->kind == K_HASHMAP) /* a table at load factor 0.75, at least 16 */
        for (need = 16; need * 3 < size * 4;)
            need *= 2;
    if (len >= 16 && len > 2 * need)
        add(c, HP_WASTE_SPARSE_COLLECTIONS, obj, (len - need) * c->ref);
}

static int remember_string(scan *c, uint32_t obj, const hp_sub *s, const class_kind *k)
{
    uint32_t len, arr = array_of(c, field_at(s, k->a, c->h->ix.f->id_size), &len);
    hp_sub a;
    if (arr == HP_NO_OBJECT) return 0;
    hp_graph_object(&c->h->g, arr, &a);
    uint64_t hash = 1469598103934665603ull ^ field_at(s, k->b, 1);
    for (uint64_t i = 0; i < a.data_len; i++)
        hash = (hash ^ a.data[i]) * 1099511628211ull;
    if (c->nstrings == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        string_entry *n = realloc(c->strings, cap * sizeof *n);
        if (!n) return -1;
        c->strings = n;
        c->cap = cap;
    }
    c->strings[c->nstrings++] = (string_entry){hash ^ a.elem_type, obj, arr};
    return 0;
}

static int instance(scan *c, uint32_t obj, const hp_sub *s)
{
    const hp_graph *g = &c->h->g;
    hp_class *k = hp_classes_get(&g->classes, s->ref);
    if (!k || hp_class_field_bytes(k, c->h->ix.f->id_size) != s->data_len) return 0;
    const class_kind *ck = &c->kinds[k - g->classes.v];
    if (ck->kind == K_STRING) return remember_string(c, obj, s, ck);
    if (ck->kind == K_ARRAYLIST || ck->kind == K_HASHMAP) collection(c, obj, s, ck);
    if (ck->kind == K_BOX) add(c, HP_WASTE_BOXES, obj, hp_graph_shallow(g, obj) - ck->box_bytes);
    if (ck->kind == K_HASHSET) {
        uint32_t map = hp_objects_find(&g->obj, field_at(s, ck->a, c->h->ix.f->id_size));
        hp_sub m;
        if (map == HP_NO_OBJECT) return 0;
        hp_graph_object(g, map, &m);
        const hp_class *mk = hp_classes_get(&g->classes, m.ref);
        if (m.tag == HP_INSTANCE_DUMP && mk && c->kinds[mk - g->classes.v].kind == K_HASHMAP &&
            field_at(&m, c->kinds[mk - g->classes.v].a, 4) == 0)
            add(c, HP_WASTE_EMPTY_COLLECTIONS, obj, hp_dom_retained(&c->h->d, obj));
    }
    return 0;
}

static void array(scan *c, uint32_t obj, const hp_sub *s, hp_idmap *empty_seen)
{
    uint64_t key = s->tag == HP_OBJ_ARRAY_DUMP ? s->ref : s->elem_type;
    if (s->count == 0) {
        if (hp_idmap_get(empty_seen, key))
            add(c, HP_WASTE_EMPTY_ARRAYS, obj, hp_graph_shallow(&c->h->g, obj));
        else
            hp_idmap_put(empty_seen, key, 1);
        return;
    }
    if (s->tag != HP_OBJ_ARRAY_DUMP || s->count < 16 || (c->backing[obj >> 3] >> (obj & 7) & 1))
        return;
    uint32_t id_size = c->h->ix.f->id_size, nulls = 0;
    for (uint32_t i = 0; i < s->count; i++)
        nulls += hp_id(c->h->ix.f, s->data + (uint64_t)i * id_size) == 0;
    if ((uint64_t)nulls * 4 >= (uint64_t)s->count * 3)
        add(c, HP_WASTE_SPARSE_ARRAYS, obj, (uint64_t)nulls * c->ref);
}

static int passes(scan *c)
{
    const hp_graph *g = &c->h->g;
    hp_idmap empty_seen = {0};
    for (int pass = 0; pass < 2; pass++) /* instances first: they mark backing arrays */
        for (uint32_t i = 0; i < g->obj.n; i++) {
            hp_sub s;
            if (!hp_dom_reachable(&c->h->d, i)) continue;
            hp_graph_object(g, i, &s);
            int is_array = s.tag == HP_OBJ_ARRAY_DUMP || s.tag == HP_PRIM_ARRAY_DUMP ||
                           s.tag == HP_PRIM_ARRAY_NODATA;
            if (pass == 0 && s.tag == HP_INSTANCE_DUMP && instance(c, i, &s) != 0) return -1;
            if (pass == 1 && is_array) array(c, i, &s, &empty_seen);
        }
    hp_idmap_free(&empty_seen);
    return 0;
}

static int by_hash(const void *a, const void *b)
{
    const string_entry *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->array < y->array ? -1 : x->array > y->array;
}

static int by_bytes(const void *a, const void *b)
{
    const hp_dup_string *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return x->string < y->string ? -1 : x->string > y->string;
}

static int same_chars(const scan *c, uint32_t a, uint32_t b)
{
    hp_sub x, y;
    if (a == b) return 1;
    hp_graph_object(&c->h->g, a, &x);
    hp_graph_object(&c->h->g, b, &y);
    return x.elem_type == y.elem_type && x.data_len == y.data_len &&
           memcmp(x.data, y.data, x.data_len) == 0;
}

/* One run of equal hashes: the copies of one value (a colliding different value is skipped). */
static int dup_group(scan *c, const string_entry *run, size_t n)
{
    const hp_graph *g = &c->h->g;
    uint64_t copies = 0, arrays = 0, bytes = 0;
    uint32_t prev = HP_NO_OBJECT;
    for (size_t i = 0; i < n; i++) {
        if (!same_chars(c, run[0].array, run[i].array)) continue;
        bytes += copies++ ? hp_graph_shallow(g, run[i].string) : 0;
        if (run[i].array != prev) bytes += arrays++ ? hp_graph_shallow(g, run[i].array) : 0;
        prev = run[i].array;
    }
    if (copies < 2) return 0;
    hp_waste *w = c->w;
    if ((w->ndups & (w->ndups - 1)) == 0) {
        hp_dup_string *d = realloc(w->dups, (w->ndups ? 2 * w->ndups : 1) * sizeof *d);
        if (!d) return -1;
        w->dups = d;
    }
    w->dups[w->ndups++] = (hp_dup_string){run[0].string, copies, bytes};
    w->distinct_dups++;
    add(c, HP_WASTE_DUP_STRINGS, run[0].string, bytes);
    w->kinds[HP_WASTE_DUP_STRINGS].count += copies - 1; /* the count is of all copies */
    return 0;
}

static int dup_strings(scan *c)
{
    if (c->nstrings) qsort(c->strings, c->nstrings, sizeof *c->strings, by_hash);
    for (size_t i = 0, j; i < c->nstrings; i = j) {
        for (j = i + 1; j < c->nstrings && c->strings[j].hash == c->strings[i].hash; j++)
            ;
        if (j - i > 1 && dup_group(c, c->strings + i, j - i) != 0) return -1;
    }
    if (c->w->ndups) qsort(c->w->dups, c->w->ndups, sizeof *c->w->dups, by_bytes);
    return 0;
}

int hp_waste_find(hp_waste *w, const hp_heap *h, hp_error *err)
{
    memset(w, 0, sizeof *w);
    for (int k = 0; k < HP_WASTE_KINDS; k++)
        w->kinds[k].sample = HP_NO_OBJECT;
    scan c = {h, w, NULL, calloc((size_t)h->g.obj.n / 8 + 1, 1), NULL, 0, 0, 0};
    c.ref = h->g.model->ref ? h->g.model->ref : h->ix.f->id_size;
    int rc = c.backing && classify(&c) == 0 && passes(&c) == 0 && dup_strings(&c) == 0 ? 0 : -1;
    free(c.kinds);
    free(c.backing);
    free(c.strings);
    if (rc != 0) {
        hp_waste_free(w);
        return hp_fail(err, 0, "out of memory");
    }
    return 0;
}

void hp_waste_free(hp_waste *w)
{
    free(w->dups);
    w->dups = NULL;
    w->ndups = 0;
}
