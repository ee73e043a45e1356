#include "cli/heap/objects.h"

#include "cli/heap/bigarray.h"

#include <stdlib.h>
#include <string.h>

/* LSD radix sort on 16-bit digits; passes where every key has the same digit
 * are skipped, so 4-byte keys of a small heap take two. */
/* NOLINTBEGIN(bugprone-macro-parentheses): `type` names a type */
#define RADIX_SORT(name, type, digits)                                                             \
    static int name(type **keys, size_t n)                                                         \
    {                                                                                              \
        size_t i = 1;                                                                              \
        while (i < n && (*keys)[i - 1] <= (*keys)[i])                                              \
            i++;                                                                                   \
        if (i >= n) return 0;                                                                      \
        type *tmp = hp_big_malloc(n * sizeof *tmp);                                                \
        size_t *count = malloc(65536 * sizeof *count);                                             \
        if (!tmp || !count) {                                                                      \
            free(tmp);                                                                             \
            free(count);                                                                           \
            return -1;                                                                             \
        }                                                                                          \
        for (unsigned shift = 0; shift < 16 * (digits); shift += 16) {                             \
            type *k = *keys;                                                                       \
            memset(count, 0, 65536 * sizeof *count);                                               \
            for (i = 0; i < n; i++)                                                                \
                count[(k[i] >> shift) & 0xffff]++;                                                 \
            if (count[(k[0] >> shift) & 0xffff] == n) continue;                                    \
            for (size_t b = 0, sum = 0; b < 65536; b++) {                                          \
                size_t c = count[b];                                                               \
                count[b] = sum;                                                                    \
                sum += c;                                                                          \
            }                                                                                      \
            for (i = 0; i < n; i++)                                                                \
                tmp[count[(k[i] >> shift) & 0xffff]++] = k[i];                                     \
            *keys = tmp;                                                                           \
            tmp = k;                                                                               \
        }                                                                                          \
        free(tmp);                                                                                 \
        free(count);                                                                               \
        return 0;                                                                                  \
    }
/* NOLINTEND(bugprone-macro-parentheses) */
RADIX_SORT(sort_u32, uint32_t, 2)
RADIX_SORT(sort_u64, uint64_t, 4)

/* The full key of object i (segment's upper half, then the stored lower half). */
static uint64_t key_at(const hp_objects *o, uint32_t i)
{
    uint32_t lo = 0, hi = o->nsegs;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->segs[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return (uint64_t)o->segs[lo].hi << 32 | o->keys[i];
}

uint64_t hp_objects_id(const hp_objects *o, uint32_t i)
{
    return o->base + (key_at(o, i) << o->align);
}

/* Directory over the top bits of the key: about 4 objects per slot. */
static int build_dir(hp_objects *o)
{
    uint64_t span = key_at(o, o->n - 1);
    uint64_t slots = o->n / 4 + 1;
    o->shift = 0;
    while (o->shift < 63 && (span >> o->shift) >= slots)
        o->shift++;
    o->dir_len = (uint32_t)(span >> o->shift) + 2;
    o->dir = hp_big_malloc((size_t)o->dir_len * sizeof *o->dir);
    if (!o->dir) return -1;
    uint32_t i = 0, seg = 0;
    for (uint32_t b = 0; b < o->dir_len; b++) {
        for (; i < o->n; i++) {
            while (seg + 1 < o->nsegs && o->segs[seg + 1].first <= i)
                seg++;
            if ((((uint64_t)o->segs[seg].hi << 32 | o->keys[i]) >> o->shift) >= b) break;
        }
        o->dir[b] = i;
    }
    return 0;
}

/* Sorted, unique 8-byte keys -> 4-byte keys plus segments (frees keys). */
static int pack_keys(hp_objects *o, uint64_t *keys, size_t n)
{
    uint32_t nsegs = 0;
    for (size_t i = 0; i < n; i++)
        nsegs += i == 0 || keys[i] >> 32 != keys[i - 1] >> 32;
    o->segs = malloc(nsegs * sizeof *o->segs);
    o->keys = hp_big_malloc(n * sizeof *o->keys);
    if (!o->segs || !o->keys) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (o->nsegs == 0 || o->segs[o->nsegs - 1].hi != (uint32_t)(keys[i] >> 32))
            o->segs[o->nsegs++] = (hp_key_segment){(uint32_t)(keys[i] >> 32), (uint32_t)i};
        o->keys[i] = (uint32_t)keys[i];
    }
    free(keys);
    return 0;
}

/* Keys below 2^32 (any heap under 32 GB): sorted as 4-byte values, half the
 * memory and passes of 8-byte ones, in one segment (frees keys). */
static int small_keys(hp_objects *o, uint64_t *keys, size_t n)
{
    uint32_t *k = hp_big_malloc(n * sizeof *k);
    o->segs = malloc(sizeof *o->segs);
    if (k)
        for (size_t i = 0; i < n; i++)
            k[i] = (uint32_t)keys[i];
    free(keys);
    if (!k || !o->segs || sort_u32(&k, n) != 0) {
        free(k);
        return -1;
    }
    size_t w = 1;
    for (size_t r = 1; r < n; r++)
        if (k[r] != k[w - 1]) k[w++] = k[r];
    o->keys = k;
    o->segs[0] = (hp_key_segment){0, 0};
    o->nsegs = 1;
    o->n = (uint32_t)w;
    return 0;
}

/* Keys relative to the smallest ID, in units of the IDs' common alignment. */
static int make_keys(hp_objects *o, uint64_t *k, size_t n)
{
    uint64_t min = k[0], spread = 0, max_key = 0;
    for (size_t i = 1; i < n; i++)
        if (k[i] < min) min = k[i];
    for (size_t i = 0; i < n; i++)
        spread |= k[i] - min;
    o->base = min;
    o->align = spread ? (unsigned)__builtin_ctzll(spread) : 0;
    for (size_t i = 0; i < n; i++) {
        k[i] = (k[i] - min) >> o->align;
        if (k[i] > max_key) max_key = k[i];
    }
    if (max_key <= UINT32_MAX) return small_keys(o, k, n);
    if (sort_u64(&k, n) != 0) {
        free(k);
        return -1;
    }
    size_t w = 1;
    for (size_t r = 1; r < n; r++)
        if (k[r] != k[w - 1]) k[w++] = k[r];
    o->n = (uint32_t)w;
    return pack_keys(o, k, w);
}

int hp_objects_from_ids(hp_objects *o, uint64_t *ids, size_t n, hp_error *err)
{
    memset(o, 0, sizeof *o);
    if (n >= HP_NO_OBJECT / 2) {
        free(ids);
        return hp_fail(err, 0, "more than 2^31 objects in one heap dump");
    }
    if (n == 0) {
        free(ids);
        return 0;
    }
    if (make_keys(o, ids, n) != 0 || build_dir(o) != 0) {
        hp_objects_free(o);
        return hp_fail(err, 0, "out of memory");
    }
    return 0;
}

void hp_objects_free(hp_objects *o)
{
    free(o->keys);
    free(o->segs);
    free(o->offsets);
    free(o->dir);
    memset(o, 0, sizeof *o);
}

uint32_t hp_objects_find_near(const hp_objects *o, uint64_t id, uint32_t guess)
{
    if (guess < o->n && o->nsegs == 1 && id >= o->base &&
        id - o->base == (uint64_t)o->keys[guess] << o->align)
        return guess;
    return hp_objects_find(o, id);
}

uint32_t hp_objects_find(const hp_objects *o, uint64_t id)
{
    if (o->n == 0 || id < o->base) return HP_NO_OBJECT;
    uint64_t d = id - o->base, key = d >> o->align;
    if ((key << o->align) != d || (key >> o->shift) + 1 >= o->dir_len) return HP_NO_OBJECT;
    uint32_t lo = o->dir[key >> o->shift], hi = o->dir[(key >> o->shift) + 1];
    uint32_t s = 0, e = o->nsegs; /* the segment of the key's upper half */
    while (e - s > 1) {
        uint32_t mid = s + (e - s) / 2;
        if (o->segs[mid].hi <= (uint32_t)(key >> 32))
            s = mid;
        else
            e = mid;
    }
    if (o->segs[s].hi != (uint32_t)(key >> 32)) return HP_NO_OBJECT;
    uint32_t seg_end = s + 1 < o->nsegs ? o->segs[s + 1].first : o->n;
    if (lo < o->segs[s].first) lo = o->segs[s].first;
    if (hi > seg_end) hi = seg_end;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->keys[mid] < (uint32_t)key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < seg_end && o->keys[lo] == (uint32_t)key ? lo : HP_NO_OBJECT;
}
