#include "agent/core/agent.h"

#include <time.h>

uint64_t hp_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t hp_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The format's u4 time field wraps after about 71 minutes; readers only use
 * it for ordering within a short window. */
uint32_t hp_record_time(void)
{
    return (uint32_t)((hp_mono_ns() - hp.start_ns) / 1000u);
}

void hp_ctime(char buf[32])
{
    time_t now = time(NULL);
    if (ctime_r(&now, buf) == NULL) {
        buf[0] = '\n';
        buf[1] = '\0';
    }
}
