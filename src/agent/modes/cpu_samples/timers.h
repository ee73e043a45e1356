/* Per-thread CPU-time timers: each sampled thread has a POSIX timer on its
 * own CPU-time clock that sends SIGPROF to that very thread after every
 * interval of CPU it consumes. A thread that is blocked, sleeping or waiting
 * consumes no CPU, so it is never signalled and never sampled. */
#ifndef HPROF_CPU_TIMERS_H
#define HPROF_CPU_TIMERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct hp_cpu_timer {
    _Atomic pid_t tid;              /* 0: slot free */
    _Atomic uint32_t thread_serial; /* 0 while the thread's serial is unknown */
    timer_t timer;
};

bool hp_timers_init(int interval_ms);
/* The timer whose signal carries `p`, or NULL if p is not one of ours. */
struct hp_cpu_timer *hp_timers_from_signal(void *p);
/* Arms the calling thread (a Java thread with that serial). */
void hp_timers_arm_current(uint32_t thread_serial);
/* Removes the calling thread's timer (ThreadEnd, or an agent thread). */
void hp_timers_remove_current(void);
/* Arms every thread of the process that has no timer yet: the threads that
 * ran before the agent's first look. Non-Java ones disarm themselves at
 * their first signal (hp_timers_disarm_self). */
void hp_timers_arm_unseen(void);
/* From the signal handler: stops this timer without freeing it
 * (timer_settime is async-signal-safe, timer_delete is not listed as such). */
void hp_timers_disarm_self(struct hp_cpu_timer *t);
/* Deletes every timer; no new ones are armed afterwards. */
void hp_timers_stop_all(void);

#endif
