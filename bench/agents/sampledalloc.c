/*
 * Minimal JVM TI agent for the sampled heap=sites comparison: enables
 * SampledObjectAlloc at the byte interval given as its option (default
 * 524288) with a callback that only counts. It shows what HotSpot's own
 * allocation sampling costs before an agent does any work per sample, so the
 * agent's share of sites-sampled is visible. Prints the count at VM death.
 * Option "0" gives an event per allocation; "0,tag" also tags every object
 * (SetTag): the floor of any heap=all whose dump cites each object's trace.
 */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long samples;
static int tag_each;

static void JNICALL on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size)
{
    (void)jni, (void)thread, (void)klass, (void)size;
    __atomic_fetch_add(&samples, 1, __ATOMIC_RELAXED);
    if (tag_each) (*jvmti)->SetTag(jvmti, object, 1);
}

static void JNICALL on_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    fprintf(stderr, "sampledalloc: %llu samples\n", __atomic_load_n(&samples, __ATOMIC_RELAXED));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    jint interval = options && *options ? (jint)atol(options) : 524288;
    tag_each = options && strstr(options, ",tag") != NULL;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_tag_objects = tag_each;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = on_sample;
    cb.VMDeath = on_death;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetHeapSamplingInterval(jvmti, interval) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    jvmtiEvent events[] = {JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, JVMTI_EVENT_VM_DEATH};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) !=
            JVMTI_ERROR_NONE)
            return JNI_ERR;
    return JNI_OK;
}
