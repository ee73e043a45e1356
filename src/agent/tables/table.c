#include "agent/tables/table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Entries live in fixed-size chunks reached through a directory allocated
 * once, so growth never moves an entry and lock-free readers stay valid. */
#define CHUNK_BITS 12
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 16384u

struct entry {
    uint64_t hash;
    uint32_t key_len;
    unsigned char *key;
    /* info follows, info_size bytes, 8-aligned */
};

struct hp_table {
    pthread_mutex_t lock;
    size_t info_size, entry_size;
    _Atomic uint32_t count;
    uint32_t *slots; /* open addressing: 0 = empty, else index */
    uint32_t slot_mask;
    unsigned char *chunks[MAX_CHUNKS];
};

static uint64_t hash_bytes(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

static struct entry *entry_at(const struct hp_table *t, uint32_t index)
{
    uint32_t i = index - 1;
    return (struct entry *)(t->chunks[i >> CHUNK_BITS] +
                            (size_t)(i & (CHUNK_SIZE - 1)) * t->entry_size);
}

struct hp_table *hp_table_new(size_t info_size)
{
    struct hp_table *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->info_size = info_size;
    t->entry_size = (sizeof(struct entry) + info_size + 15) & ~(size_t)15;
    t->slot_mask = 1023;
    t->slots = calloc(t->slot_mask + 1, sizeof *t->slots);
    if (t->slots == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

static uint32_t probe(const struct hp_table *t, const void *key, size_t len, uint64_t h,
                      uint32_t *slot)
{
    for (uint32_t s = (uint32_t)h & t->slot_mask;; s = (s + 1) & t->slot_mask) {
        uint32_t idx = t->slots[s];
        *slot = s;
        if (idx == 0) return 0;
        struct entry *e = entry_at(t, idx);
        if (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0) return idx;
    }
}

static int grow(struct hp_table *t)
{
    uint32_t mask = t->slot_mask * 2 + 1;
    uint32_t *slots = calloc((size_t)mask + 1, sizeof *slots);
    if (slots == NULL) return -1;
    uint32_t n = atomic_load(&t->count);
    for (uint32_t idx = 1; idx <= n; idx++) {
        uint32_t s = (uint32_t)entry_at(t, idx)->hash & mask;
        while (slots[s])
            s = (s + 1) & mask;
        slots[s] = idx;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_mask = mask;
    return 0;
}

uint32_t hp_table_intern(struct hp_table *t, const void *key, size_t key_len, hp_table_init_fn init,
                         void *ctx, int *added)
{
    uint64_t h = hash_bytes(key, key_len);
    uint32_t slot, idx;
    if (added) *added = 0;
    pthread_mutex_lock(&t->lock);
    idx = probe(t, key, key_len, h, &slot);
    if (idx) goto done;
    uint32_t n = atomic_load(&t->count);
    if (n + 1 >= (uint64_t)CHUNK_SIZE * MAX_CHUNKS) goto done;
    if ((n + 1) * 4 > (t->slot_mask + 1) * 3) {
        if (grow(t)) goto done;
        probe(t, key, key_len, h, &slot);
    }
    uint32_t c = n >> CHUNK_BITS;
    if (t->chunks[c] == NULL && (t->chunks[c] = calloc(CHUNK_SIZE, t->entry_size)) == NULL)
        goto done;
    unsigned char *copy = malloc(key_len ? key_len : 1);
    if (copy == NULL) goto done;
    memcpy(copy, key, key_len);
    idx = n + 1;
    struct entry *e = entry_at(t, idx);
    e->hash = h;
    e->key_len = (uint32_t)key_len;
    e->key = copy;
    if (init) init(e + 1, copy, key_len, ctx);
    t->slots[slot] = idx;
    atomic_store(&t->count, idx);
    if (added) *added = 1;
done:
    pthread_mutex_unlock(&t->lock);
    return idx;
}

uint32_t hp_table_find(struct hp_table *t, const void *key, size_t key_len)
{
    uint32_t slot;
    pthread_mutex_lock(&t->lock);
    uint32_t idx = probe(t, key, key_len, hash_bytes(key, key_len), &slot);
    pthread_mutex_unlock(&t->lock);
    return idx;
}

void *hp_table_info(struct hp_table *t, uint32_t index)
{
    if (index == 0 || index > atomic_load(&t->count)) return NULL;
    return entry_at(t, index) + 1;
}

const void *hp_table_key(struct hp_table *t, uint32_t index, size_t *key_len)
{
    if (index == 0 || index > atomic_load(&t->count)) return NULL;
    struct entry *e = entry_at(t, index);
    if (key_len) *key_len = e->key_len;
    return e->key;
}

uint32_t hp_table_count(struct hp_table *t)
{
    return atomic_load(&t->count);
}

void hp_table_free(struct hp_table *t)
{
    if (t == NULL) return;
    uint32_t n = atomic_load(&t->count);
    for (uint32_t idx = 1; idx <= n; idx++)
        free(entry_at(t, idx)->key);
    for (uint32_t c = 0; c < MAX_CHUNKS && t->chunks[c]; c++)
        free(t->chunks[c]);
    free(t->slots);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
