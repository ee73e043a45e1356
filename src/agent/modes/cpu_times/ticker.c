#include "agent/modes/cpu_times/ticker.h"

#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"

#include <stdatomic.h>
#include <time.h>

static atomic_bool ticking;
static jclass tracker;
static jfieldID clock_field;

static void tick(JNIEnv *jni)
{
    (*jni)->SetStaticLongField(jni, tracker, clock_field, (jlong)hp_mono_ns());
}

static void JNICALL run(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jvmti, (void)arg;
    const struct timespec pause = {0, HP_CT_TICK_NS};
    while (atomic_load(&ticking)) {
        tick(jni);
        nanosleep(&pause, NULL);
    }
}

bool hp_ct_ticker_start(jvmtiEnv *jvmti, JNIEnv *jni, jclass k)
{
    tracker = k;
    clock_field = (*jni)->GetStaticFieldID(jni, k, "clock", "J");
    if (clock_field == NULL) {
        (*jni)->ExceptionClear(jni);
        return false;
    }
    tick(jni);
    atomic_store(&ticking, true);
    if (hp_agent_thread_start(jvmti, jni, "HPROF cpu=times clock", run, NULL)) return true;
    atomic_store(&ticking, false);
    return false;
}

void hp_ct_ticker_stop(void)
{
    atomic_store(&ticking, false);
}
