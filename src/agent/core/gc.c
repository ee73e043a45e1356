#include "agent/core/gc.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/tasks.h"

#include <string.h>

/* The collector whose driving thread stops before VM death (NULL if not). */
static const char *stopped_collector;
/* hp_gc_one_per_dump's state, per thread: dumps on other threads (net=
 * commands) collect for themselves. */
static HP_TLS bool one_per_dump, collected;

/* Stops the listing at the thread that drives ZGC or Shenandoah. */
static bool no_driver(pid_t tid, void *arg)
{
    (void)arg;
    static const char *const drivers[][2] = {{"ZDirector", "ZGC"},
                                             {"Shenandoah Cont", "Shenandoah"}};
    char comm[HP_COMM_LEN];
    if (!hp_thread_comm(tid, comm)) return true;
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (strncmp(comm, drivers[i][0], strlen(drivers[i][0])) == 0)
            stopped_collector = drivers[i][1];
    return stopped_collector == NULL;
}

void hp_gc_probe(void)
{
    hp_tasks_each(no_driver, NULL);
}

bool hp_gc_none_at_death(void)
{
    return stopped_collector != NULL;
}

void hp_gc_vm_death(void)
{
    if (stopped_collector && hp.opt.doe && (hp.opt.heap_sites || hp.opt.heap_dump))
        hp_note("no garbage collection at VM death under %s: the exit dump may count "
                "unreachable objects as live",
                stopped_collector);
}

void hp_gc_one_per_dump(bool on)
{
    one_per_dump = on;
    collected = false;
}

bool hp_gc_for_dump(jvmtiEnv *jvmti)
{
    if (stopped_collector && atomic_load(&hp.vm_dying)) return false;
    if (one_per_dump && collected) return true;
    collected =
        hp_jvmti_ok(jvmti, (*jvmti)->ForceGarbageCollection(jvmti), "ForceGarbageCollection");
    return collected;
}
