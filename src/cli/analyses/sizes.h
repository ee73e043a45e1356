/*
 * Shallow-size estimates. HPROF records carry field values, not object
 * sizes, so sizes are modelled on the HotSpot layout: header + fields
 * (references at the model's reference size), rounded up to the alignment.
 * Field packing gaps are not modelled, so results can be low by up to one
 * alignment unit for classes with unusual field mixes.
 */
#ifndef HPROF_CLI_SIZES_H
#define HPROF_CLI_SIZES_H

#include <stdint.h>

typedef struct {
    const char *name;
    unsigned header;       /* object header bytes */
    unsigned array_header; /* header + length field */
    unsigned ref;          /* reference size; 0 = the file's ID size */
    unsigned align;
} hp_model;

/* Looks up "coops" (default: 64-bit, compressed oops and class pointers),
 * "wide" (64-bit without compression), "compact" (JDK 24+
 * -XX:+UseCompactObjectHeaders: an 8-byte header) or "raw" (bytes of the
 * HPROF record payload, no header, no alignment). Returns NULL for other
 * names. */
const hp_model *hp_model_find(const char *name);
const hp_model *hp_model_default(void);

uint64_t hp_instance_bytes(const hp_model *m, uint32_t id_size, uint64_t refs, uint64_t prim_bytes);
uint64_t hp_array_bytes(const hp_model *m, uint32_t id_size, unsigned elem_size_or_0_for_ref,
                        uint64_t count);

#endif
