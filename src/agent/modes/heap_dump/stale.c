#include "agent/modes/heap_dump/stale.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The pid in ".hprof-dump-<pid>-...", or 0 if `name` is not ours. */
static long owner_pid(const char *name)
{
    if (strncmp(name, HD_TEMP_PREFIX, sizeof HD_TEMP_PREFIX - 1) != 0) return 0;
    const char *p = name + sizeof HD_TEMP_PREFIX - 1;
    char *end;
    long pid = strtol(p, &end, 10);
    return end != p && *end == '-' && pid > 0 ? pid : 0;
}

void hd_sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return;
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = owner_pid(e->d_name);
        /* kill(pid, 0) fails with ESRCH only when no such process exists;
         * a live one (ours, or any other, EPERM included) keeps its files. */
        if (pid == 0 || pid == self || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}
