/* java.lang.HprofTracker's natives (see agent/instrument/instrument.h for
 * why they are exported functions). */
#include "agent/core/agent.h"
#include "agent/core/in_agent.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/cpu_times/collect.h"

#include <time.h>

JNIEXPORT jint JNICALL Java_java_lang_HprofTracker_depth(JNIEnv *jni, jclass k)
{
    (void)jni, (void)k;
    return hp_ct_depth();
}

JNIEXPORT void JNICALL Java_java_lang_HprofTracker_backoff(JNIEnv *jni, jclass k, jint round)
{
    (void)k;
    hp_in_agent_enter();
    hp_instr_backoff(round);
    hp_in_agent_leave(hp.jvmti, jni);
}

/* The calling thread's CPU time in ns, -1 without a thread CPU clock. */
JNIEXPORT jlong JNICALL Java_java_lang_HprofTracker_cpuTime(JNIEnv *jni, jclass k)
{
    (void)jni, (void)k;
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
