/* Big-endian integers, as every HPROF field is stored: loads and stores
 * shared by the agent's writers and splice and the front end's readers.
 * Callers guarantee the bytes exist. */
#ifndef HPROF_FORMAT_BYTES_H
#define HPROF_FORMAT_BYTES_H

#include <stdint.h>

static inline uint16_t hp_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t hp_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t hp_be64(const uint8_t *p)
{
    return (uint64_t)hp_be32(p) << 32 | hp_be32(p + 4);
}

static inline void hp_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void hp_put_be64(uint8_t *p, uint64_t v)
{
    hp_put_be32(p, (uint32_t)(v >> 32));
    hp_put_be32(p + 4, (uint32_t)v);
}

#endif
