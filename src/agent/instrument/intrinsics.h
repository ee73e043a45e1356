/* Methods the JIT may replace by an intrinsic: those annotated
 * @IntrinsicCandidate (JDK 16+) or @HotSpotIntrinsicCandidate (9-15). Once
 * C1/C2 substitutes the intrinsic, injected entry/exit calls are gone, so
 * counts of such methods would silently drop; they are left uninstrumented
 * instead (HotSpot requires every intrinsic to carry the annotation).
 * A client counting allocations rewrites those that allocate (see
 * hp_instr_client.counted_at_calls). */
#ifndef HPROF_INSTRUMENT_INTRINSICS_H
#define HPROF_INSTRUMENT_INTRINSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_MAX_INTRINSICS 128

struct hp_intrinsics {
    unsigned n;
    struct {
        const uint8_t *name, *desc; /* modified UTF-8 in the class bytes */
        uint16_t name_len, desc_len;
        bool allocates; /* its bytecode makes an object (hp_intrinsics_scan) */
    } m[HP_MAX_INTRINSICS];
};

enum hp_intrinsic { HP_NOT_INTRINSIC, HP_INTRINSIC, HP_INTRINSIC_ALLOCATING };

/* Finds the annotated methods of a class file. A malformed class or one
 * with more than HP_MAX_INTRINSICS of them yields what was found so far. */
void hp_intrinsics_scan(const uint8_t *cls, size_t len, struct hp_intrinsics *out);
enum hp_intrinsic hp_intrinsics_kind(const struct hp_intrinsics *in, const char *name,
                                     const char *desc);

#endif
