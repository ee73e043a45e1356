#include "cli/heap/targets.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/lookup.h"

uint32_t hp_find_object(const hp_heap *h, const char *what)
{
    if (!isdigit((unsigned char)what[0])) return HP_NO_OBJECT;
    char *end;
    unsigned long long id = strtoull(what, &end, 0);
    if (*end != '\0') return HP_NO_OBJECT;
    return hp_objects_find(&h->g.obj, id);
}

/* The classof words (hp_graph.classof) of the classes named `name`: several
 * loaders may define the same name; "int[]" names a primitive array type. */
static size_t class_words(const hp_heap *h, const char *name, uint32_t *words, size_t cap)
{
    size_t n = 0;
    for (int t = HP_T_BOOLEAN; t <= HP_T_LONG; t++) {
        const char *type = hp_type_name(t);
        size_t len = strlen(type);
        if (hp_is_prim_type(t) && strncmp(name, type, len) == 0 && strcmp(name + len, "[]") == 0)
            words[n++] = HP_CLASSOF_PRIM_ARRAY | t;
    }
    for (size_t i = 0; i < h->g.classes.n && n < cap; i++) {
        char buf[512];
        hp_index_class_name(&h->ix, h->g.classes.v[i].id, buf, sizeof buf);
        if (strcmp(buf, name) == 0) words[n++] = HP_CLASSOF_INSTANCE | (uint32_t)i;
    }
    return n;
}

/* All instances of the classes named `name`, in *objs (caller frees). */
static int class_instances(const hp_heap *h, const char *name, uint32_t **objs, size_t *n)
{
    uint32_t words[64];
    size_t nwords = class_words(h, name, words, 64);
    *objs = NULL;
    *n = 0;
    for (size_t w = 0; w < nwords; w++) {
        uint32_t *some;
        size_t k;
        if (hp_heap_instances(h, words[w], &some, &k) != 0) return -1;
        uint32_t *all = realloc(*objs, (*n + k + 1) * sizeof *all);
        if (!all) {
            free(some);
            return -1;
        }
        memcpy(all + *n, some, k * sizeof *some);
        free(some);
        *objs = all;
        *n += k;
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

enum { FEW = 64 }; /* up to this many of the largest are picked without sorting all */

/* Moves the `max` largest of v (by_retained order) to its front, in order. */
static void keep_largest(uint32_t *v, size_t *n, size_t max)
{
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        uint32_t x = v[i];
        size_t at = kept < max ? kept++ : max;
        while (at > 0 && by_retained(&x, &v[at - 1]) < 0) {
            if (at < max) v[at] = v[at - 1];
            at--;
        }
        if (at < max) v[at] = x;
    }
    *n = kept;
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
    free(*objs);
    if (class_instances(h, what, objs, n) != 0) return hp_fail(err, 0, "out of memory");
    sort_dom = &h->d;
    if (max<FEW && * n> max)
        keep_largest(*objs, n, max);
    else if (*n)
        qsort(*objs, *n, sizeof **objs, by_retained);
    if (*n > max) *n = max;
    hp_heap_release(h, h->store, h->store_len); /* the sizes the choice read at random */
    return 0;
}
