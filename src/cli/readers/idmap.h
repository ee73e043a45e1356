/* Open-addressing hash map from 64-bit IDs to 64-bit values. */
#ifndef HPROF_CLI_IDMAP_H
#define HPROF_CLI_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *keys, *vals;
    uint8_t *used;
    size_t cap, len; /* cap is a power of two */
} hp_idmap;

void hp_idmap_free(hp_idmap *m);
/* Inserts or overwrites. Returns 1 if the key was new, 0 if replaced, -1 on OOM. */
int hp_idmap_put(hp_idmap *m, uint64_t key, uint64_t val);
/* Returns a pointer to the value, or NULL if the key is absent. */
uint64_t *hp_idmap_get(const hp_idmap *m, uint64_t key);

#endif
