#include "agent/modes/heap_dump/map.h"

#include <stdlib.h>

/* Tags are sequence numbers with a site field on top: mix the bits so that
 * consecutive tags spread over the table. */
static size_t slot_of(uint64_t key, size_t mask)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

void hd_map_init(struct hd_map *m)
{
    *m = (struct hd_map){0};
}

void hd_map_free(struct hd_map *m)
{
    free(m->keys);
    free(m->vals);
    hd_map_init(m);
}

static void insert(uint64_t *keys, uint64_t *vals, size_t mask, uint64_t key, uint64_t val)
{
    size_t i = slot_of(key, mask);
    while (keys[i] != 0 && keys[i] != key)
        i = (i + 1) & mask;
    keys[i] = key;
    vals[i] = val;
}

static bool grow(struct hd_map *m)
{
    size_t cap = m->keys ? (m->mask + 1) * 2 : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys), *vals = malloc(cap * sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        m->oom = true;
        return false;
    }
    for (size_t i = 0; m->keys && i <= m->mask; i++)
        if (m->keys[i]) insert(keys, vals, cap - 1, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->mask = cap - 1;
    return true;
}

bool hd_map_put(struct hd_map *m, uint64_t key, uint64_t val)
{
    if (key == 0) return false;
    /* Keep the load at most 1/2 so probes stay short. */
    if ((m->keys == NULL || (m->count + 1) * 2 > m->mask + 1) && !grow(m)) return false;
    size_t i = slot_of(key, m->mask);
    while (m->keys[i] != 0 && m->keys[i] != key)
        i = (i + 1) & m->mask;
    if (m->keys[i] == 0) m->count++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

bool hd_map_get(const struct hd_map *m, uint64_t key, uint64_t *val)
{
    if (m->keys == NULL || key == 0) return false;
    for (size_t i = slot_of(key, m->mask); m->keys[i] != 0; i = (i + 1) & m->mask)
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return true;
        }
    return false;
}

size_t hd_map_bytes(const struct hd_map *m)
{
    return m->keys ? (m->mask + 1) * 16 : 0;
}
