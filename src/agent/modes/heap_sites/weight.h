/* How much one recorded allocation stands for.
 *
 * Object counts are kept in fixed point, HP_SITE_ONE units per object, so
 * that exact mode (every allocation recorded, weight exactly one) and
 * sampled mode (weights above one) share the counters.
 *
 * Sampled mode estimator: HotSpot samples the allocation that crosses a
 * sampling point placed a random, exponentially distributed number of bytes
 * (mean = interval) after the previous one, so each allocated byte is a
 * sampling point with probability 1/interval and an object of s bytes is
 * sampled with probability p = 1 - exp(-s/interval). Weighting each sample
 * by 1/p (objects) and s/p (bytes) makes the sums unbiased estimates of
 * what was allocated, as pprof and JFR do. */
#ifndef HPROF_HEAP_SITES_WEIGHT_H
#define HPROF_HEAP_SITES_WEIGHT_H

#include <stdint.h>

#define HP_SITE_ONE 65536u

/* Objects represented by one sampled object of `size` bytes, in HP_SITE_ONE
 * units; exactly HP_SITE_ONE when interval is 0 (exact mode). */
uint64_t hp_sites_weight(uint64_t size, uint64_t interval);
/* Bytes represented by that sample. */
static inline uint64_t hp_sites_weight_bytes(uint64_t size, uint64_t weight)
{
    return (uint64_t)(((unsigned __int128)size * weight + HP_SITE_ONE / 2) / HP_SITE_ONE);
}
/* A fixed-point count rounded to whole objects. */
static inline uint64_t hp_sites_objs(uint64_t fixed)
{
    return (fixed + HP_SITE_ONE / 2) / HP_SITE_ONE;
}

#endif
