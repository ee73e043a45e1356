/*
 * Open-addressing set of 32-bit indexes into a caller's array, keyed by a
 * 64-bit hash of the element's content. The caller compares contents, so
 * hash collisions (which hostile files can force) never merge two entries.
 */
#ifndef HPROF_CLI_PROFILE_ITAB_H
#define HPROF_CLI_PROFILE_ITAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t hash;
    uint32_t index; /* UINT32_MAX = empty */
} hp_itab_slot;

typedef struct {
    hp_itab_slot *slots; /* one array: a probe touches one cache line */
    size_t cap, len;     /* cap is a power of two */
} hp_itab;

/* Returns non-zero if the element at `index` has the content being looked up. */
typedef int (*hp_itab_eq)(const void *ctx, uint32_t index);

/* The index of an equal element, or UINT32_MAX. */
uint32_t hp_itab_find(const hp_itab *t, uint64_t hash, hp_itab_eq eq, const void *ctx);
/* Adds an element known to be absent. Returns 0, or -1 when out of memory. */
int hp_itab_add(hp_itab *t, uint64_t hash, uint32_t index);
void hp_itab_free(hp_itab *t);

/* Starts loading the slot a lookup of `hash` begins at. */
static inline void hp_itab_prefetch(const hp_itab *t, uint64_t hash)
{
    if (t->cap) __builtin_prefetch(&t->slots[hash & (t->cap - 1)]);
}

/* A multiply-mix hash over 8-byte words, then a 64-bit finaliser; `seed` chains fields. */
uint64_t hp_hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
