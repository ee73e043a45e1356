/* Bytecode allocation sites of the exact route: one per `new`, `newarray`,
 * `anewarray` and per dimension of a `multianewarray` in rewritten code,
 * numbered while classes are rewritten. The number passed to the tracker
 * (java.lang.HprofSites) is index << 5 | MULTI | kind, so the injected code
 * knows from it alone how to size an array and whether inner arrays follow.
 * Lookups are lock-free. */
#ifndef HPROF_HEAP_SITES_BSITE_H
#define HPROF_HEAP_SITES_BSITE_H

#include <bci.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

#define HP_BSITE_SHIFT 5
#define HP_BSITE_MULTI 16
#define HP_BSITE_KIND_MASK 15
#define HP_BSITE_INSTANCE 15 /* kinds 0..8: arrays of Z B C S I F J D, references */

struct hp_bsite {
    int mnum;     /* the allocating method */
    uint32_t bci; /* of the opcode, in the original code */
    int32_t line; /* in the original code, 0 if unknown */
    char *sig;    /* class signature of the objects counted here */
    /* Learned from the first object tagged here: */
    _Atomic uint32_t class_serial;
    _Atomic uint64_t instance_size; /* instances only */
};

/* bci site_number callback (hp_instr_client), for every client class. */
int hp_bsite_number(void *ctx, const struct bci_site *site, uint32_t cnum);
/* The site of a tracker site number, NULL if unknown. */
struct hp_bsite *hp_bsite_get(int32_t number);

#endif
