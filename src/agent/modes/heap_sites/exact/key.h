/* Keys of the exact route: what one tracker slot counts, (thread serial with
 * thread=y, tracker site number, the shadow stack's top and callers), or an
 * allocation the JVM reported (VMObjectAlloc) at a heap=sites site. A key's
 * number (1..2^23-1) is what its tagged objects carry in their tag's site
 * bits, with HP_KEY_SAMPLED set for the objects tagged by sampling. */
#ifndef HPROF_HEAP_SITES_KEY_H
#define HPROF_HEAP_SITES_KEY_H

#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>

#define HP_KEY_SAMPLED 0x800000u
#define HP_KEY_MAX 0x7fffffu
/* The most ints a tracker key holds (the bytecode site and its callers). */
#define HP_KEY_MAX_INTS 32

struct hp_key {
    /* Counted in C: by ended threads (folded at ThreadEnd) and VMObjectAlloc. */
    _Atomic uint64_t objs, bytes;
    /* Objects tagged, and of those tagged by sampling. */
    _Atomic uint64_t tagged, sampled;
    _Atomic uint32_t site; /* the heap=sites site, 0 until resolved */
};

void hp_key_table_init(int width);
/* Tracker key `k` (width ints); 0 when the table is full or out of memory. */
uint32_t hp_key_intern(uint32_t thread_serial, const jint *k);
/* The key of a JVM-reported allocation at `site`. */
uint32_t hp_key_vm(uint32_t site);
struct hp_key *hp_key_get(uint32_t key);
uint32_t hp_key_count(void);
/* The tracker key ints of `key`, NULL for a VM key; *thread_serial set. */
const jint *hp_key_ints(uint32_t key, uint32_t *thread_serial);
int hp_key_width(void);
/* Reports, once, that a key could not be made: its objects go uncounted. */
void hp_key_lost(void);

#endif
