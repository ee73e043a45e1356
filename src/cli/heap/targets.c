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

/* Whether object i is an instance (or array) of the class named `name`. */
static int is_of_class(const hp_heap *h, uint32_t i, const char *name, const hp_idmap *class_ids)
{
    hp_sub s;
    hp_graph_object(&h->g, i, &s);
    if (s.tag == HP_INSTANCE_DUMP || s.tag == HP_OBJ_ARRAY_DUMP)
        return hp_idmap_get(class_ids, s.ref) != NULL;
    if (s.tag == HP_PRIM_ARRAY_DUMP || s.tag == HP_PRIM_ARRAY_NODATA) {
        const char *t = hp_type_name(s.elem_type);
        size_t len = strlen(t);
        return strncmp(name, t, len) == 0 && strcmp(name + len, "[]") == 0;
    }
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
    if (class_ids_named(h, what, &ids) != 0) {
        hp_idmap_free(&ids);
        return hp_fail(err, 0, "out of memory");
    }
    for (uint32_t i = 0; i < h->g.obj.n; i++) {
        if (!is_of_class(h, i, what, &ids)) continue;
        if (*n == cap) {
            uint32_t *grown = realloc(*objs, 2 * cap * sizeof *grown);
            if (!grown) {
                hp_idmap_free(&ids);
                return hp_fail(err, 0, "out of memory");
            }
            *objs = grown;
            cap *= 2;
        }
        (*objs)[(*n)++] = i;
    }
    hp_idmap_free(&ids);
    sort_dom = &h->d;
    qsort(*objs, *n, sizeof **objs, by_retained);
    if (*n > max) *n = max;
    return 0;
}
