/* Per-thread CPU-time timers: each sampled thread has a POSIX timer on its
 * own CPU-time clock that sends SIGPROF to that very thread after every
 * interval of CPU it consumes. A thread that is blocked, sleeping or waiting
 * consumes no CPU, so it is never signalled and never sampled. */
#ifndef HPROF_CPU_TIMERS_H
#define HPROF_CPU_TIMERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct hp_cpu_timer {
    _Atomic pid_t tid;              /* 0: slot free */
    _Atomic uint32_t thread_serial; /* 0 while the thread's serial is unknown */
    bool carrier;                   /* a carrier of virtual threads */
    uintptr_t stack_end;            /* highest address of its stack; 0: unknown */
    timer_t timer;
    bool has_timer;        /* false: an agent thread, kept so it is never armed */
    _Atomic bool not_java; /* disarmed by its first signal: counted by vmthreads.c */
};

void hp_timers_init(int interval_ms);
/* Linux's clock ID of a thread's CPU-time clock (what pthread_getcpuclockid
 * returns), made from the tid so that any thread of the process can be read. */
clockid_t hp_thread_cpu_clock(pid_t tid);
/* The threads a timer samples (Java threads), sorted by tid, into out[0,
 * cap); returns how many there are, which may exceed cap (then out is
 * unsorted: call again with room for them all). */
size_t hp_timers_sampled_tids(pid_t *out, size_t cap);
/* The timer whose signal carries `p`, or NULL if p is not one of ours. */
struct hp_cpu_timer *hp_timers_from_signal(void *p);
/* Arms the calling thread (a Java thread with that serial; `carrier`: one
 * that runs virtual threads). */
void hp_timers_arm_current(uint32_t thread_serial, bool carrier);
/* Marks the calling thread as never to be sampled (an agent thread). */
void hp_timers_exclude_current(void);
/* Forgets the calling thread and its timer (ThreadEnd). */
void hp_timers_remove_current(void);
/* A Java thread that ran before VM_INIT (other than the VM_INIT thread),
 * by name: hp_timers_arm_unseen gives its serial to the one OS thread of
 * that name, if the name is unambiguous. */
void hp_timers_expect(const char *name, uint32_t thread_serial);
/* Arms the threads of the process that ran before the agent's first look
 * and carry the name of an expected Java thread. Any that is not a Java
 * thread after all disarms itself at its first signal
 * (hp_timers_disarm_self). */
void hp_timers_arm_unseen(void);
/* From the signal handler, on a thread that runs no Java code: stops this
 * timer without freeing it (timer_settime is async-signal-safe, timer_delete
 * is not listed as such); vmthreads.c counts the thread's CPU from then on. */
void hp_timers_disarm_self(struct hp_cpu_timer *t);
/* net= CONTROL: pauses or resumes the timer of the thread with this serial,
 * or of every thread for 0. Threads starting later are armed as usual. */
void hp_timers_set_running(uint32_t thread_serial, bool on);
/* Deletes every timer; no new ones are armed afterwards. */
void hp_timers_stop_all(void);
/* After hp_timers_stop_all, for a new recording: every slot free, no
 * thread expected, arming allowed again. */
void hp_timers_reopen(void);

#endif
