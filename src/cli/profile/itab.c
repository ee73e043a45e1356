#include "cli/profile/itab.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes per step: stacks are arrays of 32-bit frame indexes, hashed
 * once per stack read, so a byte-wise loop would be a large share of a load. */
uint64_t hp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = (seed ^ 0xcbf29ce484222325ull) + n * 0x9e3779b97f4a7c15ull;
    for (; n >= 8; n -= 8, b += 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ w * 0xbf58476d1ce4e5b9ull) * 0x94d049bb133111ebull;
        h ^= h >> 29;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, b, n);
        h = (h ^ w * 0xbf58476d1ce4e5b9ull) * 0x94d049bb133111ebull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint32_t hp_itab_find(const hp_itab *t, uint64_t hash, hp_itab_eq eq, const void *ctx)
{
    if (t->cap == 0) return UINT32_MAX;
    for (size_t i = hash & (t->cap - 1); t->slots[i].index != UINT32_MAX;
         i = (i + 1) & (t->cap - 1))
        if (t->slots[i].hash == hash && eq(ctx, t->slots[i].index)) return t->slots[i].index;
    return UINT32_MAX;
}

static void place(hp_itab *t, uint64_t hash, uint32_t index)
{
    size_t i = hash & (t->cap - 1);
    while (t->slots[i].index != UINT32_MAX)
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = (hp_itab_slot){hash, index};
    t->len++;
}

static int grow(hp_itab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    hp_itab n = {malloc(cap * sizeof *n.slots), cap, 0};
    if (!n.slots) return -1;
    for (size_t i = 0; i < cap; i++)
        n.slots[i].index = UINT32_MAX;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].index != UINT32_MAX) place(&n, t->slots[i].hash, t->slots[i].index);
    hp_itab_free(t);
    *t = n;
    return 0;
}

int hp_itab_add(hp_itab *t, uint64_t hash, uint32_t index)
{
    if ((t->len + 1) * 4 > t->cap * 3 && grow(t) != 0) return -1;
    place(t, hash, index);
    return 0;
}

void hp_itab_free(hp_itab *t)
{
    free(t->slots);
    *t = (hp_itab){0};
}
