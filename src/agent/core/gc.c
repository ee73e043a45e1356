#include "agent/core/gc.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static bool zgc;

void hp_gc_probe(void)
{
    DIR *d = opendir("/proc/self/task");
    if (d == NULL) return;
    for (struct dirent *e; !zgc && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[64], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%.20s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        if (fgets(name, sizeof name, f)) zgc = strncmp(name, "ZDirector", 9) == 0;
        fclose(f);
    }
    closedir(d);
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

bool hp_gc_for_dump(jvmtiEnv *jvmti)
{
    if (zgc && atomic_load(&hp.vm_dying)) return false;
    return hp_jvmti_ok(jvmti, (*jvmti)->ForceGarbageCollection(jvmti), "ForceGarbageCollection");
}
