#include "cli/readers/idmap.h"

#include <stdlib.h>

void hp_idmap_free(hp_idmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = (hp_idmap){0};
}

/* A full 64-bit mix (murmur3 finalizer): IDs that differ only in high bits,
 * as hostile files can have, must not pile into one probe chain. */
static size_t slot(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

static int grow(hp_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    hp_idmap n = {calloc(cap, 8), calloc(cap, 8), calloc(cap, 1), cap, 0};
    if (!n.keys || !n.vals || !n.used) {
        hp_idmap_free(&n);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) hp_idmap_put(&n, m->keys[i], m->vals[i]);
    hp_idmap_free(m);
    *m = n;
    return 0;
}

int hp_idmap_put(hp_idmap *m, uint64_t key, uint64_t val)
{
    if ((m->len + 1) * 4 > m->cap * 3 && grow(m) != 0) return -1;
    for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) {
            m->used[i] = 1;
            m->keys[i] = key;
            m->vals[i] = val;
            m->len++;
            return 1;
        }
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    }
}

uint64_t *hp_idmap_get(const hp_idmap *m, uint64_t key)
{
    if (m->cap == 0) return NULL;
    for (size_t i = slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) return &m->vals[i];
    return NULL;
}
