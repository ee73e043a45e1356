#include "agent/core/gc.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/tasks.h"

#include <string.h>

static bool zgc;
/* hp_gc_one_per_dump's state, per thread: dumps on other threads (net=
 * commands) collect for themselves. */
static _Thread_local bool one_per_dump, collected;

/* Stops the listing at ZGC's director thread. */
static bool not_zdirector(pid_t tid, void *arg)
{
    (void)arg;
    char comm[HP_COMM_LEN];
    zgc = hp_thread_comm(tid, comm) && strncmp(comm, "ZDirector", 9) == 0;
    return !zgc;
}

void hp_gc_probe(void)
{
    hp_tasks_each(not_zdirector, NULL);
}

bool hp_gc_none_at_death(void)
{
    return zgc;
}

void hp_gc_vm_death(void)
{
    if (zgc && hp.opt.doe && (hp.opt.heap_sites || hp.opt.heap_dump))
        hp_note("no garbage collection at VM death under ZGC: the exit dump may count "
                "unreachable objects as live");
}

void hp_gc_one_per_dump(bool on)
{
    one_per_dump = on;
    collected = false;
}

bool hp_gc_for_dump(jvmtiEnv *jvmti)
{
    if (zgc && atomic_load(&hp.vm_dying)) return false;
    if (one_per_dump && collected) return true;
    collected =
        hp_jvmti_ok(jvmti, (*jvmti)->ForceGarbageCollection(jvmti), "ForceGarbageCollection");
    return collected;
}
