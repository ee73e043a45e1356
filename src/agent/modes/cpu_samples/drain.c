#include "agent/modes/cpu_samples/drain.h"

#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/modes/cpu_samples/counts.h"
#include "agent/modes/cpu_samples/pseudo.h"
#include "agent/modes/cpu_samples/ring.h"
#include "agent/modes/cpu_samples/vmthreads.h"
#include "agent/tables/class.h"
#include "agent/tables/method.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* AsyncGetCallTrace results run from 0 to -10 (forte.cpp's ticks_*);
 * unwalkable[11] counts any other value. */
#define WALK_CODES 11

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* one consumer at a time */
static atomic_bool stopping;
static atomic_bool running; /* from the thread's start until its loop ends */
static int depth, interval_ms;
static bool java_only;
/* Under lock, but for in_agent (taken on application threads). */
static uint64_t walked, outside_java, unwalkable[WALK_CODES + 1];
static _Atomic uint64_t in_agent, late;

/* The frames a trace keeps: below the agent's own, at most depth=. */
static uint32_t trace_of(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint n,
                         uint32_t thread_serial)
{
    jint skip = hp_trace_agent_frames(jvmti, jni, frames, n);
    jint kept = n - skip < depth ? n - skip : depth;
    return hp_trace_from_frames(jvmti, jni, frames + skip, kept, thread_serial);
}

/* JDK 21+: the frame below a mounted virtual thread's own frames. */
static jmethodID enter_special;

static bool is_enter_special(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m)
{
    if (enter_special) return m == enter_special;
    const struct hp_method *hm = hp_method_get(jvmti, jni, m);
    const struct hp_class *c = hp_class_get(hm->class_serial);
    if (hm->name == NULL || c == NULL || c->name == NULL || strcmp(hm->name, "enterSpecial") != 0 ||
        strcmp(c->name, "jdk.internal.vm.Continuation") != 0)
        return false;
    enter_special = m;
    return true;
}

/* thread=y: one serial for every virtual thread, so that 100,000 of them
 * add one THREAD START, not 100,000. */
static uint32_t virtual_serial;

static uint32_t virtual_threads_serial(void)
{
    if (virtual_serial == 0)
        virtual_serial = hp_thread_pseudo("<virtual threads>", "VirtualThreads");
    return virtual_serial;
}

/* On a carrier, the frames above Continuation.enterSpecial are the mounted
 * virtual thread's; its frames only, when the walk stopped before reaching
 * it. Leaves *n at the virtual thread's frames; false: the carrier's own. */
static bool virtual_frames(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *f, jint *n)
{
    for (jint i = 0; i < *n; i++) {
        if (is_enter_special(jvmti, jni, f[i].method)) {
            *n = i;
            return true;
        }
    }
    return *n >= depth + HP_TRACE_AGENT_SLACK;
}

static void take(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_sample *s)
{
    if (s->n_frames == HP_SAMPLE_DEFERRED) return; /* counted by the thread itself */
    if (s->n_frames <= 0) {
        int code = -s->n_frames;
        unwalkable[code < WALK_CODES ? code : WALK_CODES]++;
        /* A named frame says why, so that no CPU goes missing. */
        if (!java_only)
            hp_cpu_counts_add(
                hp_pseudo_trace(jvmti, jni, hp_pseudo_of_walk_error(s->n_frames), s->thread_serial),
                1);
        return;
    }
    jvmtiFrameInfo frames[s->n_frames];
    for (jint i = 0; i < s->n_frames; i++) {
        frames[i].method = s->frames[i].method;
        /* lineno is the bytecode index; negative for native frames. */
        frames[i].location = s->frames[i].lineno >= 0 ? s->frames[i].lineno : -1;
    }
    jint n = s->n_frames;
    uint32_t thread_serial = s->thread_serial;
    if (s->carrier && virtual_frames(jvmti, jni, frames, &n) && hp.opt.thread)
        thread_serial = virtual_threads_serial();
    hp_cpu_counts_add(trace_of(jvmti, jni, frames, n, thread_serial), 1);
    walked++;
}

static void drain(jvmtiEnv *jvmti, JNIEnv *jni, bool poll)
{
    for (struct hp_sample *s; (s = hp_ring_peek()) != NULL; hp_ring_release(s))
        take(jvmti, jni, s);
    if (poll && !java_only) outside_java += hp_vmthreads_poll(jvmti, jni);
}

void hp_drain_now(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    drain(jvmti, jni, true);
    pthread_mutex_unlock(&lock);
}

/* Deferred samples whose thread came back to agent code too late to say
 * where they were taken, and samples in agent code whose stack could not be
 * taken. */
static void take_late(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t thread_serial)
{
    if (!java_only)
        hp_cpu_counts_add(
            hp_pseudo_trace(jvmti, jni, HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA, thread_serial), n);
    atomic_fetch_add(&late, n);
}

/* Samples noted while the thread ran agent code (core/in_agent.h): its stack
 * now, below the agent's frames, is where they belong. Sized by depth=, as
 * the thread may be deep in its stack. */
static void take_in_agent(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t thread_serial)
{
    jint want = depth + HP_TRACE_AGENT_SLACK, got = 0;
    jvmtiFrameInfo frames[want];
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, want, frames, &got) != JVMTI_ERROR_NONE ||
        got <= 0) {
        take_late(jvmti, jni, n, thread_serial);
        return;
    }
    hp_cpu_counts_add(trace_of(jvmti, jni, frames, got, thread_serial), n);
    atomic_fetch_add(&in_agent, n);
}

static struct hp_in_agent_sampler in_agent_sampler = {take_in_agent, take_late, 0};

/* Every 10 ms: often enough that the queue never fills at realistic thread
 * counts, and that methods of classes about to be unloaded are resolved
 * soon. The VM's threads are polled every 100 ms: a thread that ends loses
 * what it used since its last poll. */
static void JNICALL run(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    const struct timespec pause = {0, 10 * 1000000L};
    for (unsigned round = 1; !atomic_load(&stopping); round++) {
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        if (!atomic_load(&stopping)) drain(jvmti, jni, round % 10 == 0); /* never after VM death */
        pthread_mutex_unlock(&lock);
    }
    atomic_store(&running, false);
}

void hp_drain_init(int sample_depth, int interval, bool only_java)
{
    depth = sample_depth;
    interval_ms = interval;
    java_only = only_java;
    in_agent_sampler.interval_ns = (uint64_t)interval * 1000000u;
    hp_in_agent_set_sampler(&in_agent_sampler);
}

bool hp_drain_thread_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    atomic_store(&running, true);
    bool started = hp_agent_thread_start(jvmti, jni, "HPROF cpu sampling thread", run, NULL);
    if (!started) atomic_store(&running, false);
    return started;
}

void hp_drain_thread_join(void)
{
    const struct timespec tick = {0, 1000000L};
    /* The loop sleeps 10 ms between drains; 5 s is far beyond any wait. */
    for (int waited = 0; atomic_load(&running) && waited < 5000; waited++)
        nanosleep(&tick, NULL);
    if (atomic_load(&running)) return; /* stuck: no new thread may race with it */
    pthread_mutex_lock(&lock);
    atomic_store(&stopping, false);
    walked = outside_java = 0;
    memset(unwalkable, 0, sizeof unwalkable);
    atomic_store(&in_agent, 0);
    atomic_store(&late, 0);
    virtual_serial = 0; /* the thread table starts afresh */
    pthread_mutex_unlock(&lock);
}

void hp_drain_thread_stop(void)
{
    hp_in_agent_set_sampler(NULL);
    atomic_store(&stopping, true);
    pthread_mutex_lock(&lock); /* waits out a drain in progress */
    pthread_mutex_unlock(&lock);
}

static const char *const walk_code_names[WALK_CODES + 1] = {
    "no Java frame",         "no class load", "GC active",         "unknown not Java",
    "not walkable not Java", "unknown Java",  "not walkable Java", "unknown state",
    "thread exit",           "deoptimizing",  "safepoint",         "other"};

void hp_drain_report(void)
{
    pthread_mutex_lock(&lock);
    uint64_t dropped = hp_ring_dropped(), agent = atomic_load(&in_agent),
             too_late = atomic_load(&late), failed = too_late;
    char codes[512] = "";
    size_t len = 0;
    for (int i = 0; i <= WALK_CODES; i++) {
        failed += unwalkable[i];
        if (unwalkable[i] && len < sizeof codes)
            len += (size_t)snprintf(codes + len, sizeof codes - len, "%s%s %llu", len ? ", " : "",
                                    walk_code_names[i], (unsigned long long)unwalkable[i]);
    }
    if (too_late > 0 && len < sizeof codes)
        len += (size_t)snprintf(codes + len, sizeof codes - len, "%sdeferred too long %llu",
                                len ? ", " : "", (unsigned long long)too_late);
    uint64_t total = walked + agent + failed + outside_java + dropped;
    struct timespec cpu = {0, 0};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    double cpu_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
    double sampled_s = (double)(total - dropped) * interval_ms / 1000.0;
    hp_verbose("HPROF: cpu=samples: %llu samples: %llu Java stacks walked, %llu taken after agent "
               "code, %llu unwalkable%s%s%s, %llu outside Java threads; %llu lost (queue full, "
               "%.2f%%); %.3f s of CPU in samples of the process's %.3f s so far (%.1f%%)\n",
               (unsigned long long)total, (unsigned long long)walked, (unsigned long long)agent,
               (unsigned long long)failed, len ? " (" : "", codes, len ? ")" : "",
               (unsigned long long)outside_java, (unsigned long long)dropped,
               total ? 100.0 * (double)dropped / (double)total : 0.0, sampled_s, cpu_s,
               cpu_s > 0 ? 100.0 * sampled_s / cpu_s : 0.0);
    pthread_mutex_unlock(&lock);
}
