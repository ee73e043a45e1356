/* Bytecode allocation sites of the exact route: one per `new`, `newarray`,
 * `anewarray` and per dimension of a `multianewarray` in rewritten code,
 * and one per call of an allocating intrinsic (then one more per class of
 * its results), numbered while classes are rewritten. The number passed to the tracker
 * (java.lang.HprofSites) is index << 5 | MULTI | kind, so the injected code
 * knows from it alone how to size an array and whether inner arrays follow.
 * Lookups are lock-free. */
#ifndef HPROF_HEAP_SITES_BSITE_H
#define HPROF_HEAP_SITES_BSITE_H

#include "bci/bci.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_BSITE_SHIFT 5
#define HP_BSITE_MULTI 16
#define HP_BSITE_KIND_MASK 15
#define HP_BSITE_INSTANCE 15 /* kinds 0..8: arrays of Z B C S I F J D, references */
/* Invocation sites (hooked after the call, the result in hand): */
#define HP_BSITE_BOX 9  /* a boxing valueOf: counted when not from the box cache */
#define HP_BSITE_DYN 10 /* class known from the result: counted at a derived site */

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
/* bci invoke_number callback: the allocating intrinsics whose results are
 * counted at their call sites (boxing, clone, Array.newArray, Arrays.copyOf
 * and copyOfRange with a Class, Unsafe.allocateInstance and
 * allocateUninitializedArray0). */
int hp_bsite_invoke(void *ctx, const struct bci_invoke *inv, uint32_t cnum);
/* hp_instr_client.invoke_marked: the hooked calls of
 * Unsafe.allocateInstance, whose class HprofSites.vmMark keeps until the
 * call returns, so that its VMObjectAlloc event (vm_alloc.c) is told
 * without a stack walk. */
bool hp_bsite_marked(void *ctx, const struct bci_invoke *inv);
/* hp_instr_client.rewrites_intrinsic: all but those hp_bsite_invoke hooks
 * and those whose JIT replacement allocates unseen. */
bool hp_bsite_rewrites_intrinsic(const char *owner, const char *name, const char *desc);
/* The site of a DYN site's objects of class signature `sig` (same method
 * and line), made on first use; -1 when out of memory or not a DYN site. */
int hp_bsite_derive(int32_t dyn, const char *sig);
/* Sites numbered so far: indexes 0..count-1 (number = index << HP_BSITE_SHIFT). */
uint32_t hp_bsite_count(void);
/* The site of a tracker site number, NULL if unknown. */
struct hp_bsite *hp_bsite_get(int32_t number);

#endif
