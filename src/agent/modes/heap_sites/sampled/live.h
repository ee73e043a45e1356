/* Live counts of the sampled engine: after a forced collection, the tagged
 * objects still in the heap are exactly the recorded allocations still
 * reachable (each weighted as when it was recorded, weight.h). */
#ifndef HPROF_HEAP_SITES_SAMPLED_LIVE_H
#define HPROF_HEAP_SITES_SAMPLED_LIVE_H

#include "agent/modes/heap_sites/engine.h"

#include <jvmti.h>
#include <stdbool.h>

/* Collects garbage, then counts per site. False (after a message) when the
 * heap could not be walked; *live is then empty. */
bool hp_sites_live_count(jvmtiEnv *jvmti, struct hp_sites_live *live);
/* net= CONTROL "clear sites": the objects allocated so far no longer count
 * as live (their IDs, and so heap dumps, are unchanged). */
void hp_sites_live_forget(void);

#endif
