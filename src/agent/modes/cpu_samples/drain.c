#include "drain.h"

#include "../../core/agent_thread.h"
#include "../../core/error.h"
#include "../../tables/trace.h"
#include "counts.h"
#include "ring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

/* AsyncGetCallTrace error codes run from -1 to -10 (forte.cpp's ticks_*);
 * failed[0] counts any other negative value. */
#define AGCT_CODES 10

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* one consumer at a time */
static atomic_bool stopping;
/* Under lock. */
static uint64_t counted, failed[AGCT_CODES + 1];

static void take(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_sample *s)
{
    /* No Java frame at all: an agent thread, or a VM-internal one armed by
     * hp_timers_arm_unseen (compiler threads give -3, "not in Java, no
     * Java frame"). These are not lost Java samples. */
    if (s->n_frames == 0 || (s->n_frames == -3 && s->thread_serial == 0)) return;
    if (s->n_frames < 0) {
        failed[-s->n_frames <= AGCT_CODES ? -s->n_frames : 0]++;
        return;
    }
    jvmtiFrameInfo frames[s->n_frames];
    for (jint i = 0; i < s->n_frames; i++) {
        frames[i].method = s->frames[i].method;
        /* lineno is the bytecode index; negative for native frames. */
        frames[i].location = s->frames[i].lineno >= 0 ? s->frames[i].lineno : -1;
    }
    hp_cpu_counts_add(hp_trace_from_frames(jvmti, jni, frames, s->n_frames, s->thread_serial));
    counted++;
}

static void drain(jvmtiEnv *jvmti, JNIEnv *jni)
{
    for (struct hp_sample *s; (s = hp_ring_peek()) != NULL; hp_ring_release(s))
        take(jvmti, jni, s);
}

void hp_drain_now(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    drain(jvmti, jni);
    pthread_mutex_unlock(&lock);
}

static void JNICALL run(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    /* Often enough that the queue never fills at realistic thread counts,
     * and that methods of classes about to be unloaded are resolved soon. */
    const struct timespec pause = {0, 10 * 1000000L};
    while (!atomic_load(&stopping)) {
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        if (!atomic_load(&stopping)) drain(jvmti, jni); /* never after VM death */
        pthread_mutex_unlock(&lock);
    }
}

bool hp_drain_thread_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    return hp_agent_thread_start(jvmti, jni, "HPROF cpu sampling thread", run, NULL);
}

void hp_drain_thread_stop(void)
{
    atomic_store(&stopping, true);
    pthread_mutex_lock(&lock); /* waits out a drain in progress */
    pthread_mutex_unlock(&lock);
}

void hp_drain_report_losses(void)
{
    pthread_mutex_lock(&lock);
    uint64_t dropped = hp_ring_dropped(), lost = dropped;
    char codes[256] = "";
    size_t len = 0;
    for (int i = 0; i <= AGCT_CODES; i++) {
        lost += failed[i];
        if (failed[i] == 0 || len >= sizeof codes) continue;
        if (i)
            len += (size_t)snprintf(codes + len, sizeof codes - len, " %d:%llu", -i,
                                    (unsigned long long)failed[i]);
        else
            len += (size_t)snprintf(codes + len, sizeof codes - len, " other:%llu",
                                    (unsigned long long)failed[i]);
    }
    if (lost)
        hp_verbose("HPROF: cpu=samples: %llu samples counted, %llu lost (queue full: %llu; "
                   "AsyncGetCallTrace errors code:count%s)\n",
                   (unsigned long long)counted, (unsigned long long)lost,
                   (unsigned long long)dropped, len ? codes : " none");
    pthread_mutex_unlock(&lock);
}
