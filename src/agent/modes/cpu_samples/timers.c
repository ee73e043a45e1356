#include "agent/modes/cpu_samples/timers.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/tasks.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
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

void hp_timers_init(int interval_ms)
{
    if (interval_ms < 1) interval_ms = 1;
    period.it_interval.tv_sec = interval_ms / 1000;
    period.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000L;
    period.it_value = period.it_interval;
}

struct hp_cpu_timer *hp_timers_from_signal(void *p)
{
    uintptr_t a = (uintptr_t)p, base = (uintptr_t)pool;
    if (a < base || a >= base + sizeof pool || (a - base) % sizeof pool[0]) return NULL;
    return p;
}

clockid_t hp_thread_cpu_clock(pid_t tid)
{
    return (clockid_t)((~(unsigned)tid << 3) | 6);
}

static struct hp_cpu_timer *find(pid_t tid)
{
    for (size_t i = 0; i < used; i++)
        if (pool[i].tid == tid) return &pool[i];
    return NULL;
}

static int by_tid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

size_t hp_timers_sampled_tids(pid_t *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < used; i++) {
        const struct hp_cpu_timer *t = &pool[i];
        if (t->tid == 0 || !t->has_timer || atomic_load(&t->not_java)) continue;
        if (n < cap) out[n] = t->tid;
        n++;
    }
    pthread_mutex_unlock(&lock);
    if (n <= cap) qsort(out, n, sizeof *out, by_tid);
    return n;
}

/* The first expiry at a random point of the first interval: a thread then
 * gets CPU/interval samples on average however short it lives, where a
 * full first interval would miss up to one interval of every thread. */
static struct itimerspec first_period(pid_t tid)
{
    static _Atomic uint64_t seed = 0x9e3779b97f4a7c15u;
    uint64_t x = atomic_fetch_add(&seed, 0x9e3779b97f4a7c15u) ^ (uint64_t)tid;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 29;
    uint64_t ns =
        (uint64_t)period.it_interval.tv_sec * 1000000000u + (uint64_t)period.it_interval.tv_nsec;
    uint64_t first = 1 + x % ns;
    struct itimerspec p = period;
    p.it_value.tv_sec = (time_t)(first / 1000000000u);
    p.it_value.tv_nsec = (long)(first % 1000000000u);
    return p;
}

/* Caller holds the lock. */
static void arm(pid_t tid, uint32_t thread_serial, bool carrier, uintptr_t stack_end)
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
    t->carrier = carrier;
    t->stack_end = stack_end;
    if (timer_create(hp_thread_cpu_clock(tid), &ev, &t->timer) != 0) return; /* tid gone */
    t->tid = tid;
    t->has_timer = true;
    atomic_store(&t->not_java, false);
    struct itimerspec first = first_period(tid);
    timer_settime(t->timer, 0, &first, NULL);
}

static void delete_timer(struct hp_cpu_timer *t)
{
    if (t->has_timer) timer_delete(t->timer);
    t->has_timer = false;
}

/* For the sampler's frame-pointer check; not async-signal-safe, so taken here. */
static uintptr_t stack_end_of_current(void)
{
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    if (pthread_attr_getstack(&attr, &addr, &size) != 0) addr = NULL;
    pthread_attr_destroy(&attr);
    return addr ? (uintptr_t)addr + size : 0;
}

void hp_timers_arm_current(uint32_t thread_serial, bool carrier)
{
    pid_t tid = gettid();
    pthread_mutex_lock(&lock);
    /* A slot with this tid is from hp_timers_arm_unseen, or stale from a dead
     * thread whose tid the kernel reused: start afresh either way. */
    struct hp_cpu_timer *t = find(tid);
    if (t) {
        delete_timer(t);
        t->tid = 0;
    }
    arm(tid, thread_serial, carrier, stack_end_of_current());
    pthread_mutex_unlock(&lock);
}

void hp_timers_exclude_current(void)
{
    pid_t tid = gettid();
    pthread_mutex_lock(&lock);
    struct hp_cpu_timer *t = find(tid);
    if (t == NULL) t = find(0);
    if (t == NULL && used < MAX_TIMERS) t = &pool[used++];
    if (t) {
        delete_timer(t); /* armed by hp_timers_arm_unseen before its ThreadStart */
        t->tid = tid;
    }
    pthread_mutex_unlock(&lock);
}

void hp_timers_remove_current(void)
{
    pid_t tid = gettid();
    pthread_mutex_lock(&lock);
    struct hp_cpu_timer *t = find(tid);
    if (t) {
        delete_timer(t);
        t->tid = 0;
    }
    pthread_mutex_unlock(&lock);
}

#define MAX_EXPECTED 64

struct named {
    char comm[HP_COMM_LEN];
    uint32_t serial; /* expected threads */
    pid_t tid;       /* threads of the process */
};

static struct named expected[MAX_EXPECTED];
static size_t n_expected;

void hp_timers_expect(const char *name, uint32_t thread_serial)
{
    pthread_mutex_lock(&lock);
    if (n_expected < MAX_EXPECTED) {
        snprintf(expected[n_expected].comm, HP_COMM_LEN, "%s", name);
        expected[n_expected++].serial = thread_serial;
    }
    pthread_mutex_unlock(&lock);
}

static size_t count_comm(const struct named *list, size_t n, const char *comm)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(list[i].comm, comm) == 0;
    return k;
}

/* The serial for an unseen thread: that of the one expected thread with
 * its name, when no other thread of the process has that name; else 0. */
static uint32_t serial_by_name(const struct named *tasks, size_t n, const struct named *task)
{
    if (count_comm(expected, n_expected, task->comm) != 1 || count_comm(tasks, n, task->comm) != 1)
        return 0;
    for (size_t i = 0; i < n_expected; i++)
        if (strcmp(expected[i].comm, task->comm) == 0) return expected[i].serial;
    return 0;
}

struct task_list {
    struct named *tasks;
    size_t n, cap;
};

static bool add_task(pid_t tid, void *arg)
{
    struct task_list *l = arg;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct named *more = realloc(l->tasks, cap * sizeof *more);
        if (more == NULL) return false;
        l->tasks = more;
        l->cap = cap;
    }
    struct named *t = &l->tasks[l->n++];
    t->tid = tid;
    if (!hp_thread_comm(tid, t->comm)) t->comm[0] = '\0';
    return true;
}

void hp_timers_arm_unseen(void)
{
    struct task_list l = {NULL, 0, 0};
    if (!hp_tasks_each(add_task, &l)) {
        hp_error("cpu=samples: cannot list /proc/self/task (%s); threads started before the "
                 "agent are not sampled",
                 strerror(errno));
        return;
    }
    struct named *tasks = l.tasks;
    size_t n = l.n;
    pthread_mutex_lock(&lock);
    /* The others are the VM's own threads (GC, JIT, ...): vmthreads.c
     * counts their CPU by their clocks, which costs them no signals.
     * Attached, every thread is armed: the main thread's OS name is the
     * launcher's, not "main"; the VM's threads disarm themselves at their
     * first signal (hp_timers_disarm_self), and are polled from then on. */
    for (size_t i = 0; i < n; i++)
        if (hp.attached || count_comm(expected, n_expected, tasks[i].comm) > 0)
            arm(tasks[i].tid, serial_by_name(tasks, n, &tasks[i]), false, 0);
    pthread_mutex_unlock(&lock);
    free(tasks);
}

void hp_timers_disarm_self(struct hp_cpu_timer *t)
{
    static const struct itimerspec zero;
    timer_settime(t->timer, 0, &zero, NULL);
    atomic_store(&t->not_java, true);
}

void hp_timers_set_running(uint32_t thread_serial, bool on)
{
    static const struct itimerspec zero;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < used; i++)
        if (pool[i].has_timer && !atomic_load(&pool[i].not_java) &&
            (thread_serial == 0 || pool[i].thread_serial == thread_serial))
            timer_settime(pool[i].timer, 0, on ? &period : &zero, NULL);
    pthread_mutex_unlock(&lock);
}

void hp_timers_reopen(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < used; i++)
        pool[i].tid = 0;
    n_expected = 0;
    stopped = false;
    pthread_mutex_unlock(&lock);
}

void hp_timers_stop_all(void)
{
    pthread_mutex_lock(&lock);
    stopped = true;
    for (size_t i = 0; i < used; i++)
        delete_timer(&pool[i]);
    pthread_mutex_unlock(&lock);
}
