#include "cli/heap/waste.h"

#include <stdlib.h>
#include <string.h>

#include "cli/analyses/histo.h"

enum { RELEASE_EVERY = 1 << 21 }; /* objects between drops of the dump's pages */

enum { K_OTHER, K_STRING, K_ARRAYLIST, K_HASHMAP, K_HASHSET, K_BOX };

typedef struct {
    uint8_t kind, box_bytes;
    int32_t a, b; /* field offsets: String value/coder, ArrayList size/elementData,
                     HashMap size/table, HashSet map, box value; -1 if absent */
} class_kind;

/* A String by two independent 64-bit hashes of its value (coder, element type,
 * length and bytes): equal pairs are taken as equal values. */
typedef struct {
    uint64_t hash, check;
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

/* The array an instance's reference field points to: its index, and its sub-record in *a. */
static uint32_t array_of(const scan *c, uint64_t id, hp_sub *a)
{
    uint32_t i = id ? hp_objects_find(&c->h->g.obj, id) : HP_NO_OBJECT;
    a->count = 0;
    if (i == HP_NO_OBJECT) return i;
    hp_graph_object(&c->h->g, i, a);
    if (a->tag != HP_OBJ_ARRAY_DUMP && a->tag != HP_PRIM_ARRAY_DUMP) {
        a->count = 0;
        return HP_NO_OBJECT;
    }
    return i;
}

static void collection(scan *c, uint32_t obj, const hp_sub *s, const class_kind *k)
{
    uint32_t id_size = c->h->ix.f->id_size;
    uint64_t size = field_at(s, k->a, 4);
    hp_sub a;
    uint32_t arr = array_of(c, field_at(s, k->b, id_size), &a), len = a.count;
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

static uint64_t avalanche(uint64_t h)
{
    h = (h ^ h >> 33) * 0xff51afd7ed558ccdull;
    h = (h ^ h >> 33) * 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 33;
}

/* Two hashes of a value's bytes, eight at a time, by different mixing steps. */
static void hash_value(const uint8_t *p, uint64_t len, uint64_t *hash, uint64_t *check)
{
    uint64_t h = *hash, k = *check;
    for (uint64_t i = 0; i < len; i += 8) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i < 8 ? len - i : 8);
        h = (h ^ w) * 1099511628211ull;
        k = ((k << 29 | k >> 35) ^ w) * 0x9e3779b97f4a7c15ull;
    }
    *hash = avalanche(h);
    *check = avalanche(k + len);
}

static int remember_string(scan *c, uint32_t obj, const hp_sub *s, const class_kind *k)
{
    hp_sub a;
    uint32_t arr = array_of(c, field_at(s, k->a, c->h->ix.f->id_size), &a);
    if (arr == HP_NO_OBJECT) return 0;
    uint64_t hash = 1469598103934665603ull ^ field_at(s, k->b, 1), check = a.data_len;
    hash_value(a.data, a.data_len, &hash, &check);
    if (c->nstrings == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        string_entry *n = realloc(c->strings, cap * sizeof *n);
        if (!n) return -1;
        c->strings = n;
        c->cap = cap;
    }
    c->strings[c->nstrings++] = (string_entry){hash ^ a.elem_type, check ^ a.elem_type, obj, arr};
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

/* Whether an array may be zero-length or a sparse Object[] (16+ elements), by
 * its shallow size alone: any element makes an array larger than an empty one. */
static int array_wanted(const scan *c, uint32_t i, uint32_t kind, uint32_t type)
{
    const hp_heap *h = c->h;
    uint32_t id_size = h->ix.f->id_size, shallow = h->g.shallow[i];
    unsigned elem = kind == HP_CLASSOF_OBJ_ARRAY ? 0 : hp_type_size((uint8_t)type, 0);
    if (shallow == UINT32_MAX || shallow == hp_array_bytes(h->g.model, id_size, elem, 0)) return 1;
    return kind == HP_CLASSOF_OBJ_ARRAY && !(c->backing[i >> 3] >> (i & 7) & 1) &&
           shallow >= hp_array_bytes(h->g.model, id_size, 0, 16);
}

/* Whether pass 0 (instances of the known classes) or 1 (arrays) looks at object i. */
static int wanted(const scan *c, uint32_t i, int pass)
{
    uint32_t word = c->h->g.classof[i], kind = HP_CLASSOF_KIND(word), at = HP_CLASSOF_INDEX(word);
    if (pass == 1)
        return (kind == HP_CLASSOF_OBJ_ARRAY || kind == HP_CLASSOF_PRIM_ARRAY) &&
               array_wanted(c, i, kind, at);
    return kind == HP_CLASSOF_INSTANCE && at < c->h->g.classes.n && c->kinds[at].kind != K_OTHER;
}

static int passes(scan *c)
{
    const hp_heap *h = c->h;
    hp_idmap empty_seen = {0};
    for (int pass = 0; pass < 2; pass++) { /* instances first: they mark backing arrays */
        for (uint32_t i = 0; i < h->g.obj.n; i++) {
            hp_sub s;
            if (i % RELEASE_EVERY == 0) { /* both are read about in order: keep little of them */
                hp_release(h->ix.f, 0, h->ix.f->size);
                hp_heap_release(h, h->store, h->store_len);
            }
            if (!wanted(c, i, pass) || !hp_dom_reachable(&h->d, i)) continue;
            hp_graph_object(&h->g, i, &s);
            if (pass == 0 && instance(c, i, &s) != 0) return -1;
            if (pass == 1) array(c, i, &s, &empty_seen);
        }
    }
    hp_release(h->ix.f, 0, h->ix.f->size);
    hp_heap_release(h, h->store, h->store_len);
    hp_idmap_free(&empty_seen);
    return 0;
}

static int by_hash(const void *a, const void *b)
{
    const string_entry *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    if (x->check != y->check) return x->check < y->check ? -1 : 1;
    return x->array < y->array ? -1 : x->array > y->array;
}

static int by_bytes(const void *a, const void *b)
{
    const hp_dup_string *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return x->string < y->string ? -1 : x->string > y->string;
}

/* Sorts the strings by hash: spread by the hash's top bits, then each small bucket sorted. */
static int sort_strings(scan *c)
{
    enum { BITS = 16 };
    size_t *start = calloc(((size_t)1 << BITS) + 1, sizeof *start);
    string_entry *sorted = malloc((c->nstrings + 1) * sizeof *sorted);
    if (!start || !sorted) {
        free(start);
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < c->nstrings; i++)
        start[(c->strings[i].hash >> (64 - BITS)) + 1]++;
    for (size_t b = 1; b <= (size_t)1 << BITS; b++)
        start[b] += start[b - 1];
    for (size_t i = 0; i < c->nstrings; i++) /* start[b] ends as bucket b's end */
        sorted[start[c->strings[i].hash >> (64 - BITS)]++] = c->strings[i];
    for (size_t b = 0, from = 0; b < (size_t)1 << BITS; from = start[b++])
        qsort(sorted + from, start[b] - from, sizeof *sorted, by_hash);
    free(start);
    free(c->strings);
    c->strings = sorted;
    return 0;
}

/* One run of equal hashes: the copies of one value. */
static int dup_group(scan *c, const string_entry *run, size_t n)
{
    const hp_graph *g = &c->h->g;
    uint64_t copies = 0, arrays = 0, bytes = 0;
    uint32_t prev = HP_NO_OBJECT;
    for (size_t i = 0; i < n; i++) {
        bytes += copies++ ? hp_graph_shallow(g, run[i].string) : 0;
        if (run[i].array != prev) bytes += arrays++ ? hp_graph_shallow(g, run[i].array) : 0;
        prev = run[i].array;
    }
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
    if (sort_strings(c) != 0) return -1;
    for (size_t i = 0, j; i < c->nstrings; i = j) {
        const string_entry *first = &c->strings[i];
        for (j = i + 1; j < c->nstrings && c->strings[j].hash == first->hash &&
                        c->strings[j].check == first->check;
             j++)
            ;
        if (j - i > 1 && dup_group(c, first, j - i) != 0) return -1;
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
