#include "agent/instrument/instrument.h"

#include <sched.h>
#include <time.h>

void hp_instr_backoff(int round)
{
    if (round < 0) return; /* a tracker's engage() links its native this way */
    if (round < 8) {
        sched_yield();
        return;
    }
    /* 50 us, doubling to 1 ms: among many more runnable threads than cores,
     * a yield rarely reaches the holder; sleeping waiters let it run. */
    long us = round >= 13 ? 1000 : 50L << (round - 8);
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}
