#include "heap/objects.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t *ids, *offsets;
    size_t n, cap;
} pairs;

static int on_sub(void *ctx, const hp_sub *s, hp_error *err)
{
    pairs *p = ctx;
    if (!hp_is_object_sub(s->tag)) return 0;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4096;
        uint64_t *ids = realloc(p->ids, cap * sizeof *ids);
        if (ids) p->ids = ids;
        uint64_t *offs = ids ? realloc(p->offsets, cap * sizeof *offs) : NULL;
        if (!offs) return hp_fail(err, s->offset, "out of memory");
        p->offsets = offs;
        p->cap = cap;
    }
    p->ids[p->n] = s->id;
    p->offsets[p->n++] = s->offset;
    return 0;
}

int hp_objects_build(hp_objects *o, const hp_index *ix, size_t d, hp_error *err)
{
    pairs p = {0};
    memset(o, 0, sizeof *o);
    if (hp_dump_walk(ix, d, on_sub, &p, err) != 0) {
        free(p.ids);
        free(p.offsets);
        return -1;
    }
    return hp_objects_from_pairs(o, p.ids, p.offsets, p.n, err);
}

/* One stable counting-sort pass on the 16-bit digit at `shift`; returns 0 if
 * every key has the same digit (nothing moved). */
static int radix_pass(uint64_t *ids, uint64_t *offs, uint64_t *tid, uint64_t *toff, size_t n,
                      unsigned shift, size_t *count)
{
    memset(count, 0, 65536 * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[(ids[i] >> shift) & 0xffff]++;
    if (count[(ids[0] >> shift) & 0xffff] == n) return 0;
    size_t sum = 0;
    for (size_t b = 0; b < 65536; b++) {
        size_t c = count[b];
        count[b] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = count[(ids[i] >> shift) & 0xffff]++;
        tid[at] = ids[i];
        toff[at] = offs[i];
    }
    return 1;
}

static int sort_pairs(uint64_t **ids, uint64_t **offs, size_t n)
{
    size_t i = 1;
    while (i < n && (*ids)[i - 1] <= (*ids)[i])
        i++;
    if (i >= n) return 0;
    uint64_t *tid = malloc(n * sizeof *tid), *toff = malloc(n * sizeof *toff);
    size_t *count = malloc(65536 * sizeof *count);
    if (!tid || !toff || !count) {
        free(tid);
        free(toff);
        free(count);
        return -1;
    }
    for (unsigned shift = 0; shift < 64; shift += 16) {
        if (!radix_pass(*ids, *offs, tid, toff, n, shift, count)) continue;
        uint64_t *t = *ids;
        *ids = tid;
        tid = t;
        t = *offs;
        *offs = toff;
        toff = t;
    }
    free(tid);
    free(toff);
    free(count);
    return 0;
}

/* Directory over the top bits of (id - ids[0]): about 4 objects per slot. */
static int build_dir(hp_objects *o)
{
    uint64_t span = o->ids[o->n - 1] - o->ids[0];
    uint64_t slots = o->n / 4 + 1;
    o->shift = 0;
    while (o->shift < 63 && (span >> o->shift) >= slots)
        o->shift++;
    o->dir_len = (uint32_t)(span >> o->shift) + 2;
    o->dir = malloc((size_t)o->dir_len * sizeof *o->dir);
    if (!o->dir) return -1;
    uint32_t i = 0;
    for (uint32_t b = 0; b < o->dir_len; b++) {
        while (i < o->n && ((o->ids[i] - o->ids[0]) >> o->shift) < b)
            i++;
        o->dir[b] = i;
    }
    return 0;
}

int hp_objects_from_pairs(hp_objects *o, uint64_t *ids, uint64_t *offsets, size_t n, hp_error *err)
{
    memset(o, 0, sizeof *o);
    o->ids = ids;
    o->offsets = offsets;
    if (n >= HP_NO_OBJECT / 2) {
        hp_objects_free(o);
        return hp_fail(err, 0, "more than 2^31 objects in one heap dump");
    }
    if (n == 0) return 0;
    if (sort_pairs(&o->ids, &o->offsets, n) != 0) {
        hp_objects_free(o);
        return hp_fail(err, 0, "out of memory");
    }
    /* Keep the first sub-record of a duplicate ID (the sort is stable). */
    size_t w = 1;
    for (size_t r = 1; r < n; r++) {
        if (o->ids[r] == o->ids[w - 1]) continue;
        o->ids[w] = o->ids[r];
        o->offsets[w++] = o->offsets[r];
    }
    o->n = (uint32_t)w;
    if (build_dir(o) != 0) {
        hp_objects_free(o);
        return hp_fail(err, 0, "out of memory");
    }
    return 0;
}

void hp_objects_free(hp_objects *o)
{
    free(o->ids);
    free(o->offsets);
    free(o->dir);
    memset(o, 0, sizeof *o);
}

uint32_t hp_objects_find(const hp_objects *o, uint64_t id)
{
    if (o->n == 0 || id < o->ids[0] || id > o->ids[o->n - 1]) return HP_NO_OBJECT;
    uint64_t b = (id - o->ids[0]) >> o->shift;
    uint32_t lo = o->dir[b], hi = o->dir[b + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->n && o->ids[lo] == id ? lo : HP_NO_OBJECT;
}
