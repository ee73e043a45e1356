/* A map from object ID (a non-zero JVM TI tag) to a 64-bit value, for the
 * heap walk: open addressing, no locks, no removal. The walk callbacks run
 * on the VM thread one at a time, so a plain single-threaded map suffices. */
#ifndef HPROF_HD_MAP_H
#define HPROF_HD_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hd_map {
    uint64_t *keys, *vals;
    size_t mask, count;
    bool oom;
};

void hd_map_init(struct hd_map *m);
void hd_map_free(struct hd_map *m);
/* Sets key (non-zero) to val; false when memory is exhausted. */
bool hd_map_put(struct hd_map *m, uint64_t key, uint64_t val);
/* Looks key up; false if absent. */
bool hd_map_get(const struct hd_map *m, uint64_t key, uint64_t *val);
/* Bytes the map holds, for the memory report. */
size_t hd_map_bytes(const struct hd_map *m);

#endif
