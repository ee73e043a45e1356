/* The full collection a dump makes so that only reachable objects count. */
#ifndef HPROF_GC_H
#define HPROF_GC_H

#include <jvmti.h>
#include <stdbool.h>

/* At VM init: notes whether the collector is one whose driving thread stops
 * before VM death is posted: ZGC, where a collection requested then waits
 * for ever (JDK 25), and Shenandoah (JDK 17 waits for ever; JDK 25 says
 * "Control thread is terminating, no more GCs" and collects nothing). Read
 * from the threads' names ("ZDirector", "Shenandoah Control Thread", on
 * JDK 17 to 25): no Java code runs for it. */
void hp_gc_probe(void);
/* True if no collection may be requested at VM death. */
bool hp_gc_none_at_death(void);
/* At VM death, before the dumps: says so when they will be made without a
 * collection. */
void hp_gc_vm_death(void);
/* ForceGarbageCollection, except at VM death when hp_gc_none_at_death()
 * (then false), and except on a thread inside hp_gc_one_per_dump(true)
 * that collected already (then true). */
bool hp_gc_for_dump(jvmtiEnv *jvmti);
/* On for the calling thread while it makes one dump of several modes
 * (heap=all's heap dump and SITES): the first mode's collection serves the
 * others; a second full GC right after it frees next to nothing. */
void hp_gc_one_per_dump(bool on);

#endif
