#include "agent/core/pause.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

atomic_int hp_pause_waiting;

void hp_pause(unsigned step_ms, unsigned max_ms)
{
    hp_pause_waiting = 1;
    fprintf(stderr, "HPROF pause for PID %d\n", (int)getpid());
    fflush(stderr);
    for (unsigned waited = 0; hp_pause_waiting && waited < max_ms; waited += step_ms) {
        struct timespec ts = {step_ms / 1000, (long)(step_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    hp_pause_waiting = 0;
}
