#include "timers.h"

#include "../../core/error.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fixed pool, so that a pointer arriving with a signal can be checked
 * against it and stays valid after its thread is gone (a signal may still
 * be pending when the timer is deleted). Slots are reused, never freed. */
#define MAX_TIMERS 16384

static struct hp_cpu_timer pool[MAX_TIMERS];
static size_t used; /* high-water mark */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct itimerspec period;
static bool stopped;

bool hp_timers_init(int interval_ms)
{
    if (interval_ms < 1) interval_ms = 1;
    period.it_interval.tv_sec = interval_ms / 1000;
    period.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000L;
    period.it_value = period.it_interval;
    return true;
}

struct hp_cpu_timer *hp_timers_from_signal(void *p)
{
    uintptr_t a = (uintptr_t)p, base = (uintptr_t)pool;
    if (a < base || a >= base + sizeof pool || (a - base) % sizeof pool[0]) return NULL;
    return p;
}

/* Linux's clock ID of a thread's CPU-time clock (what pthread_getcpuclockid
 * returns), built from the tid so that other threads can be armed too. */
static clockid_t thread_cpu_clock(pid_t tid)
{
    return (clockid_t)((~(unsigned)tid << 3) | 6);
}

static struct hp_cpu_timer *find(pid_t tid)
{
    for (size_t i = 0; i < used; i++)
        if (pool[i].tid == tid) return &pool[i];
    return NULL;
}

/* Caller holds the lock. */
static void arm(pid_t tid, uint32_t thread_serial)
{
    if (stopped || find(tid)) return;
    struct hp_cpu_timer *t = find(0);
    if (t == NULL && used < MAX_TIMERS) t = &pool[used++];
    if (t == NULL) return; /* more live threads than slots: this one goes unsampled */
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev.sigev_value.sival_ptr = t;
    ev._sigev_un._tid = tid;
    atomic_store(&t->thread_serial, thread_serial);
    if (timer_create(thread_cpu_clock(tid), &ev, &t->timer) != 0) return; /* tid gone */
    t->tid = tid;
    timer_settime(t->timer, 0, &period, NULL);
}

static void remove_timer(struct hp_cpu_timer *t)
{
    timer_delete(t->timer);
    t->tid = 0;
}

void hp_timers_arm_current(uint32_t thread_serial)
{
    pid_t tid = gettid();
    pthread_mutex_lock(&lock);
    /* A slot with this tid is from hp_timers_arm_unseen, or stale from a dead
     * thread whose tid the kernel reused: start afresh either way. */
    struct hp_cpu_timer *t = find(tid);
    if (t) remove_timer(t);
    arm(tid, thread_serial);
    pthread_mutex_unlock(&lock);
}

void hp_timers_remove_current(void)
{
    pid_t tid = gettid();
    pthread_mutex_lock(&lock);
    struct hp_cpu_timer *t = find(tid);
    if (t) remove_timer(t);
    pthread_mutex_unlock(&lock);
}

void hp_timers_arm_unseen(void)
{
    DIR *d = opendir("/proc/self/task");
    if (d == NULL) {
        hp_error("cpu=samples: cannot list /proc/self/task (%s); threads started before the "
                 "agent are not sampled",
                 strerror(errno));
        return;
    }
    pthread_mutex_lock(&lock);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end == '\0' && tid > 0) arm((pid_t)tid, 0);
    }
    pthread_mutex_unlock(&lock);
    closedir(d);
}

void hp_timers_disarm_self(struct hp_cpu_timer *t)
{
    static const struct itimerspec zero;
    timer_settime(t->timer, 0, &zero, NULL);
}

void hp_timers_stop_all(void)
{
    pthread_mutex_lock(&lock);
    stopped = true;
    for (size_t i = 0; i < used; i++)
        if (pool[i].tid) remove_timer(&pool[i]);
    pthread_mutex_unlock(&lock);
}
