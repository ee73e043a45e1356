#include "cli/heap/store.h"

#include "cli/heap/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAGIC "HPROFIX4"

typedef struct {
    char magic[8];
    hp_store_key key;
    uint32_t n, nedges, nsegs, dir_len, shift, align;
    uint64_t base, nroots, nclasses;
    uint64_t nrows, ndups, nsuspects; /* the findings' counts */
    hp_section sec[HP_NSECTIONS];
} header;

const size_t hp_spill_header_bytes = (sizeof(header) + 7) / 8 * 8;

/* Where each array's pointer lives and its length under the header's counts;
 * `classes` stands in for the class offsets, `im` for the findings. */
static void sections(hp_heap *h, const header *hd, uint64_t **classes, hp_findings_image *im,
                     void **at[HP_NSECTIONS], uint64_t bytes[HP_NSECTIONS])
{
    hp_graph *g = &h->g;
    hp_domtree *d = &h->d;
    uint64_t n = hd->n, v = n + 1;
    void **const where[HP_NSECTIONS] = {
        [HP_SEC_KEYS] = (void **)&g->obj.keys,
        [HP_SEC_SEGS] = (void **)&g->obj.segs,
        [HP_SEC_DIR] = (void **)&g->obj.dir,
        [HP_SEC_OFFSETS] = (void **)&g->obj.offsets,
        [HP_SEC_SHALLOW] = (void **)&g->shallow,
        [HP_SEC_OUT_START] = (void **)&g->out_start,
        [HP_SEC_OUT] = (void **)&g->out,
        [HP_SEC_ROOTS] = (void **)&g->roots,
        [HP_SEC_CLASSES] = (void **)classes,
        [HP_SEC_PRE] = (void **)&d->pre,
        [HP_SEC_VERTEX] = (void **)&d->vertex,
        [HP_SEC_IDOM] = (void **)&d->idom,
        [HP_SEC_RETAINED] = (void **)&d->retained,
        [HP_SEC_REACHABLE] = (void **)&d->reachable,
        [HP_SEC_CLASSOF] = (void **)&g->classof,
        [HP_SEC_HISTO] = (void **)&im->histo,
        [HP_SEC_WASTE] = (void **)&im->waste,
        [HP_SEC_DUPS] = (void **)&im->dups,
        [HP_SEC_SUSPECTS] = (void **)&im->suspects,
    };
    const uint64_t len[HP_NSECTIONS] = {
        [HP_SEC_KEYS] = n * 4,
        [HP_SEC_SEGS] = (uint64_t)hd->nsegs * sizeof(hp_key_segment),
        [HP_SEC_DIR] = (uint64_t)hd->dir_len * 4,
        [HP_SEC_OFFSETS] = n * 8,
        [HP_SEC_SHALLOW] = n * 4,
        [HP_SEC_OUT_START] = v * 4,
        [HP_SEC_OUT] = (uint64_t)hd->nedges * 4,
        [HP_SEC_ROOTS] = hd->nroots * sizeof(hp_root),
        [HP_SEC_CLASSES] = hd->nclasses * 8,
        [HP_SEC_PRE] = n * 4,
        [HP_SEC_VERTEX] = v * 4,
        [HP_SEC_IDOM] = v * 4,
        [HP_SEC_RETAINED] = v * 8,
        [HP_SEC_REACHABLE] = n / 8 + 1,
        [HP_SEC_CLASSOF] = n * 4,
        [HP_SEC_HISTO] = hd->nrows * HP_HISTO_WORDS * 8,
        [HP_SEC_WASTE] = HP_WASTE_WORDS * 8,
        [HP_SEC_DUPS] = hd->ndups * HP_DUP_WORDS * 8,
        [HP_SEC_SUSPECTS] = hd->nsuspects * HP_SUSPECT_WORDS * 8,
    };
    memcpy(at, where, sizeof where);
    memcpy(bytes, len, sizeof len);
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

/* The header of h's index, its sections where `sp` put them; im: the
 * findings' counts (NULL: none yet). */
static void make_header(header *hd, const hp_heap *h, const hp_store_key *key, const hp_spill *sp,
                        const hp_findings_image *im)
{
    const hp_graph *g = &h->g;
    memset(hd, 0, sizeof *hd);
    memcpy(hd->magic, MAGIC, 8);
    hd->key = *key;
    hd->n = g->obj.n;
    hd->nedges = g->nedges;
    hd->nsegs = g->obj.nsegs;
    hd->dir_len = g->obj.dir_len;
    hd->shift = g->obj.shift;
    hd->align = g->obj.align;
    hd->base = g->obj.base;
    hd->nroots = g->nroots;
    hd->nclasses = g->classes.n;
    if (im) {
        hd->nrows = im->nrows;
        hd->ndups = im->ndups;
        hd->nsuspects = im->nsuspects;
    }
    memcpy(hd->sec, sp->sec, sizeof hd->sec);
}

static uint64_t *class_offsets(const hp_graph *g)
{
    uint64_t *classes = malloc((g->classes.n + 1) * sizeof *classes);
    for (size_t i = 0; classes && i < g->classes.n; i++)
        classes[i] = g->classes.v[i].offset;
    return classes;
}

int hp_store_write(const hp_heap *h, const hp_store_key *key, FILE *out)
{
    static const uint8_t zeros[8];
    header hd;
    hp_spill sp;
    hp_findings_image im;
    void **at[HP_NSECTIONS];
    uint64_t bytes[HP_NSECTIONS];
    uint64_t *classes = class_offsets(&h->g);
    if (!classes || hp_findings_pack(h->fx, &im) != 0) {
        free(classes);
        return -1;
    }
    hp_spill_init(&sp, -1);
    make_header(&hd, h, key, &sp, &im);
    sections((hp_heap *)h, &hd, &classes, &im, at, bytes);
    for (int i = 0; i < HP_NSECTIONS; i++) { /* in section order, after the header */
        hd.sec[i] = (hp_section){sp.at, bytes[i]};
        sp.at += (bytes[i] + 7) / 8 * 8;
    }
    int ok = fwrite(&hd, sizeof hd, 1, out) == 1 &&
             fwrite(zeros, hp_spill_header_bytes - sizeof hd, 1, out) <= 1;
    for (int i = 0; i < HP_NSECTIONS && ok; i++) {
        size_t pad = (bytes[i] + 7) / 8 * 8 - bytes[i];
        ok = (!bytes[i] || fwrite(*at[i], bytes[i], 1, out) == 1) &&
             (!pad || fwrite(zeros, pad, 1, out) == 1);
    }
    free(classes);
    hp_findings_image_free(&im);
    return ok ? 0 : -1;
}

int hp_store_finish(hp_heap *h, hp_spill *sp, const hp_store_key *key)
{
    header hd;
    uint64_t *classes = class_offsets(&h->g);
    int ok = classes &&
             hp_spill_put(sp, HP_SEC_ROOTS, &h->g.roots, h->g.nroots * sizeof(hp_root)) == 0 &&
             hp_spill_save(sp, HP_SEC_CLASSES, classes, h->g.classes.n * 8) == 0;
    free(classes);
    if (!ok) return -1;
    make_header(&hd, h, key, sp, NULL);
    return hp_spill_write_header(sp, &hd, sizeof hd);
}

int hp_store_finish_findings(const hp_heap *h, const hp_findings *fx, hp_spill *sp,
                             const hp_store_key *key)
{
    header hd;
    hp_findings_image im;
    if (hp_findings_pack(fx, &im) != 0) return -1;
    int ok =
        hp_spill_save(sp, HP_SEC_HISTO, im.histo, im.nrows * HP_HISTO_WORDS * 8) == 0 &&
        hp_spill_save(sp, HP_SEC_WASTE, im.waste, HP_WASTE_WORDS * 8) == 0 &&
        hp_spill_save(sp, HP_SEC_DUPS, im.dups, im.ndups * HP_DUP_WORDS * 8) == 0 &&
        hp_spill_save(sp, HP_SEC_SUSPECTS, im.suspects, im.nsuspects * HP_SUSPECT_WORDS * 8) == 0;
    make_header(&hd, h, key, sp, &im);
    hp_findings_image_free(&im);
    return ok ? hp_spill_write_header(sp, &hd, sizeof hd) : -1;
}

static int same_key(const hp_store_key *a, const hp_store_key *b)
{
    return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
           a->ino == b->ino && a->dev == b->dev && a->dump == b->dump && a->id_size == b->id_size &&
           strncmp(a->model, b->model, sizeof a->model) == 0;
}

static int is_findings_section(int i)
{
    return i == HP_SEC_HISTO || i == HP_SEC_WASTE || i == HP_SEC_DUPS || i == HP_SEC_SUSPECTS;
}

/* Counts no image could hold are refused before any length is computed from them. */
static int counts_fit(const header *hd, size_t len)
{
    uint64_t words = len / 8;
    return hd->nroots <= words && hd->nclasses <= words && hd->nrows <= words &&
           hd->ndups <= words && hd->nsuspects <= words;
}

/* Points t's arrays into the image; the findings' arrays into im. */
static int map_sections(hp_heap *t, const header *hd, const uint8_t *image, size_t len, int how,
                        uint64_t **classes, hp_findings_image *im)
{
    void **at[HP_NSECTIONS];
    uint64_t bytes[HP_NSECTIONS];
    sections(t, hd, classes, im, at, bytes);
    for (int i = 0; i < HP_NSECTIONS; i++) {
        const hp_section *s = &hd->sec[i];
        if (how == HP_STORE_PARTIAL && is_findings_section(i)) continue;
        if (s->bytes != bytes[i] || s->at % 8 || s->at < hp_spill_header_bytes || s->at > len ||
            s->bytes > len - s->at)
            return -1;
        *at[i] = (void *)(image + s->at);
    }
    im->nrows = hd->nrows;
    im->ndups = hd->ndups;
    im->nsuspects = hd->nsuspects;
    return 0;
}

int hp_store_attach_image(hp_heap *h, const uint8_t *image, size_t len, const hp_store_key *key,
                          const hp_model *m, int how)
{
    header hd;
    if (len < hp_spill_header_bytes) return -1;
    memcpy(&hd, image, sizeof hd);
    if (memcmp(hd.magic, MAGIC, 8) != 0 || !same_key(&hd.key, key) || !counts_fit(&hd, len))
        return -1;
    hp_heap t = *h; /* built into a copy; h stays untouched on failure */
    uint64_t *classes = NULL;
    hp_findings_image im = {0};
    memset(&t.g, 0, sizeof t.g);
    memset(&t.d, 0, sizeof t.d);
    t.fx = NULL;
    if (map_sections(&t, &hd, image, len, how, &classes, &im) != 0) return -1;
    hp_graph arrays = t.g;
    hp_error e;
    if (hp_graph_classes_from(&t.g, &h->ix, key->dump, m, classes, hd.nclasses, &e) != 0) {
        hp_graph_free(&t.g);
        return -1;
    }
    t.g.obj = arrays.obj;
    t.g.obj.n = hd.n;
    t.g.obj.nsegs = hd.nsegs;
    t.g.obj.dir_len = hd.dir_len;
    t.g.obj.shift = hd.shift;
    t.g.obj.align = hd.align;
    t.g.obj.base = hd.base;
    t.g.shallow = arrays.shallow;
    t.g.classof = arrays.classof;
    t.g.out_start = arrays.out_start;
    t.g.out = arrays.out;
    t.g.nedges = hd.nedges;
    t.g.roots = arrays.roots;
    t.g.nroots = hd.nroots;
    t.d.n = hd.n;
    t.d.borrowed = 1;
    if (how != HP_STORE_PARTIAL) {
        t.fx = malloc(sizeof *t.fx);
        if (!t.fx || hp_findings_unpack(t.fx, &im, &t.g) != 0) {
            free(t.fx);
            hp_graph_free(&t.g);
            return -1;
        }
    }
    if (how != HP_STORE_TRUSTED && how != HP_STORE_PARTIAL &&
        !hp_store_consistent(&t, h->ix.f->size, how == HP_STORE_MAPPED)) {
        hp_findings_free(t.fx);
        free(t.fx);
        hp_graph_free(&t.g);
        return -1;
    }
    h->g = t.g;
    h->d = t.d;
    h->fx = t.fx;
    h->level = HP_HEAP_DOMINATORS;
    return 0;
}

int hp_store_attach(hp_heap *h, const uint8_t *image, size_t len, const hp_store_key *key,
                    const hp_model *m)
{
    return hp_store_attach_image(h, image, len, key, m, HP_STORE_CHECK);
}
