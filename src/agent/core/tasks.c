#include "agent/core/tasks.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool hp_tasks_each(hp_task_fn fn, void *arg)
{
    DIR *d = opendir("/proc/self/task");
    if (d == NULL) return false;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || tid <= 0) continue; /* "." and ".." */
        if (!fn((pid_t)tid, arg)) break;
    }
    closedir(d);
    return true;
}

bool hp_thread_comm(pid_t tid, char comm[HP_COMM_LEN])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return false;
    bool ok = fgets(comm, HP_COMM_LEN, f) != NULL;
    fclose(f);
    if (ok) comm[strcspn(comm, "\n")] = '\0';
    return ok;
}
