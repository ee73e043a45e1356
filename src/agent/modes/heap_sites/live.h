/* Live counts: after a forced collection, the tagged objects still in the
 * heap are exactly the recorded allocations still reachable. */
#ifndef HPROF_HEAP_SITES_LIVE_H
#define HPROF_HEAP_SITES_LIVE_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct hp_sites_live {
    uint32_t n_sites; /* sites 1..n_sites are counted */
    uint64_t since;   /* object IDs with a lower sequence number do not count */
    uint64_t *objs;   /* [site]: HP_SITE_ONE units (weight.h) */
    uint64_t *bytes;  /* [site] */
};

/* Collects garbage, then counts per site. False (after a message) when the
 * heap could not be walked; *live is then empty. */
bool hp_sites_live_count(jvmtiEnv *jvmti, struct hp_sites_live *live);
void hp_sites_live_free(struct hp_sites_live *live);
/* net= CONTROL "clear sites": the objects allocated so far no longer count
 * as live (their IDs, and so heap dumps, are unchanged). */
void hp_sites_live_forget(void);

#endif
