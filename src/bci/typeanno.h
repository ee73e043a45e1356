/* Relocation of bytecode offsets inside Code-level type annotations
 * (RuntimeVisibleTypeAnnotations / RuntimeInvisibleTypeAnnotations). */
#ifndef BCI_TYPEANNO_H
#define BCI_TYPEANNO_H

#include <stdint.h>

/* Patches the attribute body in place.  map_range(ctx, &start, &len) maps a
 * local-variable range; map_insn(ctx, pc) maps an instruction offset (-1 if
 * pc is not an instruction).  NULL on success, else an error message. */
const char *ta_relocate(uint8_t *data, uint32_t len, void *ctx,
                        int (*map_range)(void *ctx, uint32_t *start, uint32_t *len),
                        int32_t (*map_insn)(void *ctx, uint32_t pc));

#endif
