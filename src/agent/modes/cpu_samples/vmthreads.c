#include "agent/modes/cpu_samples/vmthreads.h"

#include "agent/core/agent.h"
#include "agent/core/tasks.h"
#include "agent/modes/cpu_samples/counts.h"
#include "agent/modes/cpu_samples/pseudo.h"
#include "agent/modes/cpu_samples/timers.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct polled {
    pid_t tid;
    bool java; /* sampled by its timer: never polled */
    enum hp_pseudo kind;
    uint64_t used_ns; /* CPU counted so far */
    uint32_t seen;    /* the poll that last listed it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct polled *threads; /* sorted by tid */
static size_t n_threads, cap_threads;
static uint64_t interval_ns;
/* CPU not yet in samples, per kind; rounding to the nearest sample leaves it
 * between -interval/2 and +interval/2, so the counts are not biased low. */
static int64_t carry[HP_PSEUDO_COUNT];
static uint32_t polls;
static bool paused;

void hp_vmthreads_init(int interval_ms)
{
    pthread_mutex_lock(&lock);
    interval_ns = (uint64_t)(interval_ms < 1 ? 1 : interval_ms) * 1000000u;
    n_threads = 0; /* a new recording after `stop` starts from nothing */
    memset(carry, 0, sizeof carry);
    polls = 0;
    paused = false;
    pthread_mutex_unlock(&lock);
}

static uint64_t cpu_ns(pid_t tid)
{
    struct timespec ts;
    if (clock_gettime(hp_thread_cpu_clock(tid), &ts) != 0) return 0; /* gone */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int by_tid(const void *a, const void *b)
{
    pid_t x = ((const struct polled *)a)->tid, y = ((const struct polled *)b)->tid;
    return (x > y) - (x < y);
}

/* In threads[0, n), which is sorted. */
static struct polled *find(pid_t tid, size_t n)
{
    struct polled key = {.tid = tid};
    return n ? bsearch(&key, threads, n, sizeof *threads, by_tid) : NULL;
}

/* The Java threads' tids at this poll (hp_timers_sampled_tids), sorted. */
static pid_t *java_tids;
static size_t n_java, cap_java;

static void snapshot_java_threads(void)
{
    for (;;) {
        n_java = hp_timers_sampled_tids(java_tids, cap_java);
        if (n_java <= cap_java) return;
        size_t cap = n_java + 64; /* room for threads starting meanwhile */
        pid_t *more = realloc(java_tids, cap * sizeof *more);
        if (more == NULL) { /* every thread counts as a VM thread this poll */
            n_java = 0;
            return;
        }
        java_tids = more;
        cap_java = cap;
    }
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

static bool is_java(pid_t tid)
{
    return n_java && bsearch(&tid, java_tids, n_java, sizeof *java_tids, by_pid) != NULL;
}

/* A thread listed for the first time. The process's first thread is the
 * launcher's, which only starts the VM. */
static void add(pid_t tid, bool first_poll)
{
    if (n_threads == cap_threads) {
        size_t cap = cap_threads ? 2 * cap_threads : 64;
        struct polled *more = realloc(threads, cap * sizeof *more);
        if (more == NULL) return; /* this thread's time goes uncounted */
        threads = more;
        cap_threads = cap;
    }
    struct polled *p = &threads[n_threads++];
    memset(p, 0, sizeof *p);
    p->tid = tid;
    char comm[HP_COMM_LEN];
    if (!hp_thread_comm(tid, comm)) comm[0] = '\0';
    p->kind = tid == getpid() ? HP_PSEUDO_VM_STARTUP : hp_pseudo_of_thread_name(comm);
    p->java = is_java(tid);
    /* Only what a Java thread used before its timer: the VM's start. */
    if (p->java && first_poll) carry[HP_PSEUDO_VM_STARTUP] += (int64_t)cpu_ns(tid);
}

struct listing {
    size_t known; /* threads[0, known) are sorted */
    bool first_poll;
};

static bool list_thread(pid_t tid, void *arg)
{
    const struct listing *l = arg;
    struct polled *p = find(tid, l->known); /* readdir lists a tid once */
    if (p == NULL) {
        add(tid, l->first_poll);
        p = &threads[n_threads - 1];
        if (p->tid != tid) return true; /* no memory */
    } else if (p->java != is_java(p->tid)) {
        /* Armed after it was listed (before its ThreadStart), or a VM
         * thread armed when attached that disarmed itself: polled from now. */
        p->java = !p->java;
        if (!p->java) p->used_ns = cpu_ns(p->tid);
    }
    p->seen = polls;
    return true;
}

static void list_threads(bool first_poll)
{
    snapshot_java_threads();
    struct listing l = {n_threads, first_poll};
    if (!hp_tasks_each(list_thread, &l)) return;
    if (n_threads > l.known) qsort(threads, n_threads, sizeof *threads, by_tid);
}

static void read_clocks(void)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_threads; i++) {
        struct polled *p = &threads[i];
        if (p->seen != polls) continue; /* ended: what it used since the last poll is lost */
        if (!p->java) {
            uint64_t now = cpu_ns(p->tid);
            if (now > p->used_ns) {
                if (!paused) carry[p->kind] += (int64_t)(now - p->used_ns);
                p->used_ns = now;
            }
        }
        threads[kept++] = *p;
    }
    n_threads = kept;
}

void hp_vmthreads_set_running(bool on)
{
    pthread_mutex_lock(&lock);
    paused = !on;
    pthread_mutex_unlock(&lock);
}

uint64_t hp_vmthreads_poll(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    bool first = polls++ == 0;
    list_threads(first);
    read_clocks();
    /* Attached: what the threads used before the attach is not the recording's. */
    if (first && hp.attached) memset(carry, 0, sizeof carry);
    uint32_t samples[HP_PSEUDO_COUNT];
    for (int k = 0; k < HP_PSEUDO_COUNT; k++) {
        int64_t n = (carry[k] + (int64_t)interval_ns / 2) / (int64_t)interval_ns;
        samples[k] = n > 0 ? (uint32_t)n : 0;
        carry[k] -= (int64_t)samples[k] * (int64_t)interval_ns;
    }
    pthread_mutex_unlock(&lock);
    uint64_t added = 0;
    for (int k = 0; k < HP_PSEUDO_COUNT; k++) {
        if (samples[k] == 0) continue;
        hp_cpu_counts_add(hp_pseudo_trace(jvmti, jni, (enum hp_pseudo)k, 0), samples[k]);
        added += samples[k];
    }
    return added;
}
