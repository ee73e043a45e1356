#include "heap/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAGIC "HPROFIX1"

typedef struct {
    char magic[8];
    hp_store_key key;
    uint32_t n, nedges, dir_len, shift;
    uint64_t nroots, nclasses;
} header;

typedef struct {
    void **array; /* where the array's pointer lives */
    size_t bytes;
} section;

enum { NSECTIONS = 13 };

/* The arrays of an index in file order; `classes` stands in for the class offsets. */
static void layout(hp_heap *h, const header *hd, uint64_t **classes, section s[NSECTIONS])
{
    hp_graph *g = &h->g;
    hp_domtree *d = &h->d;
    size_t n = hd->n, v = n + 1;
    const section all[NSECTIONS] = {
        {(void **)&g->obj.ids, n * 8},
        {(void **)&g->obj.offsets, n * 8},
        {(void **)&g->obj.dir, (size_t)hd->dir_len * 4},
        {(void **)&g->shallow, n * 4},
        {(void **)&g->out_start, v * 4},
        {(void **)&g->out, (size_t)hd->nedges * 4},
        {(void **)&g->roots, (size_t)hd->nroots * sizeof(hp_root)},
        {(void **)classes, (size_t)hd->nclasses * 8},
        {(void **)&d->pre, v * 4},
        {(void **)&d->vertex, v * 4},
        {(void **)&d->idom, v * 4},
        {(void **)&d->retained, v * 8},
        {(void **)&d->reachable, n / 8 + 1},
    };
    memcpy(s, all, sizeof all);
}

static size_t padded(size_t bytes)
{
    return (bytes + 7) / 8 * 8;
}

int hp_store_key_of(hp_store_key *k, const hp_file *f, size_t dump, const hp_model *m)
{
    struct stat st;
    memset(k, 0, sizeof *k);
    if (stat(f->path, &st) != 0) return -1;
    k->size = (uint64_t)st.st_size;
    k->mtime_s = (uint64_t)st.st_mtim.tv_sec;
    k->mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
    k->ino = (uint64_t)st.st_ino;
    k->dev = (uint64_t)st.st_dev;
    k->dump = dump;
    k->id_size = f->id_size;
    snprintf(k->model, sizeof k->model, "%s", m->name);
    return 0;
}

int hp_store_write(const hp_heap *h, const hp_store_key *key, FILE *out)
{
    static const uint8_t zeros[8];
    const hp_graph *g = &h->g;
    header hd = {MAGIC,        *key,      g->obj.n,    g->nedges, g->obj.n ? g->obj.dir_len : 0,
                 g->obj.shift, g->nroots, g->classes.n};
    uint64_t *classes = malloc((g->classes.n + 1) * sizeof *classes);
    section s[NSECTIONS];
    if (!classes) return -1;
    for (size_t i = 0; i < g->classes.n; i++)
        classes[i] = g->classes.v[i].offset;
    layout((hp_heap *)h, &hd, &classes, s);
    int ok = fwrite(&hd, sizeof hd, 1, out) == 1;
    for (int i = 0; i < NSECTIONS && ok; i++) {
        size_t pad = padded(s[i].bytes) - s[i].bytes;
        ok = (!s[i].bytes || fwrite(*s[i].array, s[i].bytes, 1, out) == 1) &&
             (!pad || fwrite(zeros, pad, 1, out) == 1);
    }
    free(classes);
    return ok ? 0 : -1;
}

static int same_key(const hp_store_key *a, const hp_store_key *b)
{
    return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
           a->ino == b->ino && a->dev == b->dev && a->dump == b->dump && a->id_size == b->id_size &&
           strncmp(a->model, b->model, sizeof a->model) == 0;
}

int hp_store_attach(hp_heap *h, const uint8_t *image, size_t len, const hp_store_key *key,
                    const hp_model *m)
{
    header hd;
    if (len < sizeof hd) return -1;
    memcpy(&hd, image, sizeof hd);
    if (memcmp(hd.magic, MAGIC, 8) != 0 || !same_key(&hd.key, key)) return -1;
    hp_heap t = *h; /* built into a copy; h stays untouched on failure */
    uint64_t *classes = NULL;
    section s[NSECTIONS];
    memset(&t.g, 0, sizeof t.g);
    memset(&t.d, 0, sizeof t.d);
    layout(&t, &hd, &classes, s);
    size_t at = sizeof hd;
    for (int i = 0; i < NSECTIONS; i++) {
        if (s[i].bytes > len - at || padded(s[i].bytes) > len - at) return -1;
        *s[i].array = (void *)(image + at);
        at += padded(s[i].bytes);
    }
    if (at != len) return -1;
    hp_graph arrays = t.g;
    hp_error e;
    if (hp_graph_classes_from(&t.g, &h->ix, key->dump, m, classes, hd.nclasses, &e) != 0) {
        hp_graph_free(&t.g);
        return -1;
    }
    t.g.obj = arrays.obj;
    t.g.obj.n = hd.n;
    t.g.obj.dir_len = hd.dir_len;
    t.g.obj.shift = hd.shift;
    t.g.shallow = arrays.shallow;
    t.g.out_start = arrays.out_start;
    t.g.out = arrays.out;
    t.g.nedges = hd.nedges;
    t.g.roots = arrays.roots;
    t.g.nroots = hd.nroots;
    t.d.n = hd.n;
    t.d.borrowed = 1;
    if (!hp_store_consistent(&t, h->ix.f->size)) {
        hp_graph_free(&t.g);
        return -1;
    }
    h->g = t.g;
    h->d = t.d;
    h->level = HP_HEAP_DOMINATORS;
    return 0;
}
