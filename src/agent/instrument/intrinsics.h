/* Methods the JIT treats specially, found by their annotations.
 *
 * Intrinsics: those annotated @IntrinsicCandidate (JDK 16+) or
 * @HotSpotIntrinsicCandidate (9-15). Once C1/C2 substitutes the intrinsic,
 * injected entry/exit calls are gone, so counts of such methods would
 * silently drop; they are left uninstrumented instead (HotSpot requires
 * every intrinsic to carry the annotation). A client counting allocations
 * rewrites those that allocate (hp_instr_client.rewrites_intrinsic).
 *
 * Method-handle plumbing: in java/lang/invoke/ and jdk/internal/reflect/,
 * the methods annotated @ForceInline or @Hidden (LambdaForms compiled into
 * the Holder classes, VarHandle guards and accessors, the checks they
 * call). The JIT inlines them whatever their size, the JVM leaves @Hidden
 * frames out of stack traces, and the same LambdaForms spun at run time are
 * hidden classes no agent sees. Entry/exit calls in them doubled the calls
 * a method handle or reflective call costs (instrument.c: only clients that
 * count no allocation leave them alone). */
#ifndef HPROF_INSTRUMENT_INTRINSICS_H
#define HPROF_INSTRUMENT_INTRINSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hp_intrinsics {
    unsigned n, cap;
    struct hp_special_method {
        const uint8_t *name, *desc; /* modified UTF-8 in the class bytes */
        uint16_t name_len, desc_len;
        bool intrinsic; /* else method-handle plumbing */
        bool allocates; /* its bytecode makes an object (hp_intrinsics_scan) */
    } * m;
};

enum hp_intrinsic { HP_NOT_INTRINSIC, HP_INTRINSIC, HP_INTRINSIC_ALLOCATING, HP_MH_PLUMBING };

/* Finds the annotated methods of a class file. A malformed class, or no
 * memory, yields what was found so far. Free with hp_intrinsics_free. */
void hp_intrinsics_scan(const uint8_t *cls, size_t len, struct hp_intrinsics *out);
enum hp_intrinsic hp_intrinsics_kind(const struct hp_intrinsics *in, const char *name,
                                     const char *desc);
void hp_intrinsics_free(struct hp_intrinsics *in);

#endif
