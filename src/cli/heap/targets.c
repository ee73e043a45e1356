#include "heap/targets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

uint32_t hp_find_object(const hp_heap *h, const char *what)
{
    if (!isdigit((unsigned char)what[0])) return HP_NO_OBJECT;
    char *end;
    unsigned long long id = strtoull(what, &end, 0);
    if (*end != '\0') return HP_NO_OBJECT;
    return hp_objects_find(&h->g.obj, id);
}

/* A pass over the dump's sub-records (in file order, releasing its pages as it
 * goes) for the instances and arrays of the class `name`. */
typedef struct {
    const hp_heap *h;
    const char *name;
    const hp_idmap *class_ids;
    uint32_t *v, last;
    size_t n, cap;
} class_scan;

static int is_of_class(const class_scan *c, const hp_sub *s)
{
    if (s->tag == HP_INSTANCE_DUMP || s->tag == HP_OBJ_ARRAY_DUMP)
        return hp_idmap_get(c->class_ids, s->ref) != NULL;
    if (s->tag == HP_PRIM_ARRAY_DUMP || s->tag == HP_PRIM_ARRAY_NODATA) {
        const char *t = hp_type_name(s->elem_type);
        size_t len = strlen(t);
        return strncmp(c->name, t, len) == 0 && strcmp(c->name + len, "[]") == 0;
    }
    return 0;
}

static int collect_instance(void *ctx, const hp_sub *s, hp_error *err)
{
    class_scan *c = ctx;
    if (!is_of_class(c, s)) return 0;
    uint32_t i = hp_objects_find_near(&c->h->g.obj, s->id, c->last + 1);
    c->last = i;
    /* Only an object's first sub-record is in the graph. */
    if (i == HP_NO_OBJECT || c->h->g.obj.offsets[i] != s->offset) return 0;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        uint32_t *grown = realloc(c->v, cap * sizeof *grown);
        if (!grown) return hp_fail(err, s->offset, "out of memory");
        c->v = grown;
        c->cap = cap;
    }
    c->v[c->n++] = i;
    return 0;
}

/* Class IDs (several loaders may define the same name) whose Java name is `name`. */
static int class_ids_named(const hp_heap *h, const char *name, hp_idmap *ids)
{
    for (size_t i = 0; i < h->g.classes.n; i++) {
        char buf[512];
        hp_index_class_name(&h->ix, h->g.classes.v[i].id, buf, sizeof buf);
        if (strcmp(buf, name) == 0 && hp_idmap_put(ids, h->g.classes.v[i].id, 1) < 0) return -1;
    }
    return 0;
}

static const hp_domtree *sort_dom;

static int by_retained(const void *a, const void *b)
{
    uint64_t x = hp_dom_retained(sort_dom, *(const uint32_t *)a);
    uint64_t y = hp_dom_retained(sort_dom, *(const uint32_t *)b);
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

int hp_find_targets(const hp_heap *h, const char *what, size_t max, uint32_t **objs, size_t *n,
                    hp_error *err)
{
    size_t cap = 16;
    *n = 0;
    *objs = malloc(cap * sizeof **objs);
    if (!*objs) return hp_fail(err, 0, "out of memory");
    uint32_t one = hp_find_object(h, what);
    if (one != HP_NO_OBJECT) {
        (*objs)[(*n)++] = one;
        return 0;
    }
    hp_idmap ids = {0};
    free(*objs);
    *objs = NULL;
    if (class_ids_named(h, what, &ids) != 0) {
        hp_idmap_free(&ids);
        return hp_fail(err, 0, "out of memory");
    }
    class_scan c = {h, what, &ids, NULL, 0, 0, 0};
    int rc = hp_dump_walk(&h->ix, h->dump, collect_instance, &c, err);
    hp_idmap_free(&ids);
    *objs = c.v;
    *n = c.n;
    if (rc != 0) return -1;
    sort_dom = &h->d;
    if (*n) qsort(*objs, *n, sizeof **objs, by_retained);
    if (*n > max) *n = max;
    return 0;
}
