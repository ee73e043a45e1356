#include "agent/core/in_agent.h"
#include "agent/core/agent.h"

#include <stdatomic.h>
#include <time.h>

/* HP_TLS (agent.h): read from a signal handler. */

static HP_TLS unsigned depth;
/* Lock-free, so that the handler may add to them. */
static HP_TLS atomic_uint noted, deferred;
static HP_TLS volatile uint32_t noted_serial;
static HP_TLS volatile unsigned leaves, leaves_at_defer;
static HP_TLS volatile uint64_t deferred_at; /* thread CPU ns of the first deferred */
static const struct hp_in_agent_sampler *_Atomic sampler;

void hp_in_agent_set_sampler(const struct hp_in_agent_sampler *s)
{
    atomic_store(&sampler, s);
}

void hp_in_agent_enter(void)
{
    depth++;
    atomic_signal_fence(memory_order_seq_cst); /* the handler sees depth before the section runs */
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void take_deferred(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_in_agent_sampler *s,
                          bool in_time)
{
    unsigned n = atomic_exchange(&deferred, 0);
    if (n == 0 || s == NULL || jvmti == NULL || jni == NULL) return;
    (in_time ? s->take : s->unwalkable)(jvmti, jni, n, noted_serial);
}

void hp_in_agent_leave(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (depth > 1) {
        depth--;
        return;
    }
    const struct hp_in_agent_sampler *s = atomic_load(&sampler);
    /* Still inside while taking them: a sample arriving now is noted too.
     * Only the thread's own signal handler adds to `noted`, so a plain load
     * spares the locked exchange when there is none (the allocation hooks
     * leave a section per object). */
    while (atomic_load_explicit(&noted, memory_order_relaxed) > 0) {
        unsigned n = atomic_exchange(&noted, 0);
        if (s && jvmti && jni) s->take(jvmti, jni, n, noted_serial);
    }
    if (atomic_load_explicit(&deferred, memory_order_relaxed) > 0)
        take_deferred(jvmti, jni, s, s && thread_cpu_ns() - deferred_at < 2 * s->interval_ns);
    leaves++;
    atomic_signal_fence(memory_order_seq_cst);
    depth = 0;
}

bool hp_in_agent_note(uint32_t thread_serial)
{
    if (depth == 0) return false;
    noted_serial = thread_serial;
    atomic_fetch_add(&noted, 1);
    return true;
}

bool hp_in_agent_defer(uint32_t thread_serial)
{
    unsigned now = leaves;
    bool active = now != leaves_at_defer;
    leaves_at_defer = now;
    if (!active) return false;
    noted_serial = thread_serial;
    if (atomic_fetch_add(&deferred, 1) == 0) deferred_at = thread_cpu_ns();
    return true;
}

void hp_in_agent_thread_end(jvmtiEnv *jvmti, JNIEnv *jni)
{
    take_deferred(jvmti, jni, atomic_load(&sampler), false);
}
