/* The full collection a dump makes so that only reachable objects count. */
#ifndef HPROF_GC_H
#define HPROF_GC_H

#include <jvmti.h>
#include <stdbool.h>

/* At VM init: notes whether the collector is ZGC, whose threads stop before
 * VM death is posted, so that a collection requested then waits for ever
 * (seen on JDK 25). Read from the threads' names (ZGC's "ZDirector", on
 * JDK 17 to 25): no Java code runs for it. */
void hp_gc_probe(void);
/* True if no collection may be requested at VM death. */
bool hp_gc_none_at_death(void);
/* At VM death, before the dumps: says so when they will be made without a
 * collection. */
void hp_gc_vm_death(void);
/* ForceGarbageCollection, except at VM death when hp_gc_none_at_death()
 * (then false). */
bool hp_gc_for_dump(jvmtiEnv *jvmti);

#endif
