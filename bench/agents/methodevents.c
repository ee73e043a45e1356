/*
 * Minimal JVM TI agent for the cpu=times comparison: enables MethodEntry and
 * MethodExit events and counts them. It shows what event-based method timing
 * costs before any work is done per call, so the gain of bytecode rewriting is
 * visible. Prints the counts to stderr at VM death.
 */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

static unsigned long long entries, exits;

static void JNICALL on_entry(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method)
{
    (void)jvmti, (void)jni, (void)thread, (void)method;
    __atomic_fetch_add(&entries, 1, __ATOMIC_RELAXED);
}

static void JNICALL on_exit(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
                            jboolean by_exception, jvalue value)
{
    (void)jvmti, (void)jni, (void)thread, (void)method, (void)by_exception, (void)value;
    __atomic_fetch_add(&exits, 1, __ATOMIC_RELAXED);
}

static void JNICALL on_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    fprintf(stderr, "methodevents: %llu entries, %llu exits\n",
            __atomic_load_n(&entries, __ATOMIC_RELAXED), __atomic_load_n(&exits, __ATOMIC_RELAXED));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)options, (void)reserved;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_method_entry_events = 1;
    caps.can_generate_method_exit_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.MethodEntry = on_entry;
    cb.MethodExit = on_exit;
    cb.VMDeath = on_death;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    jvmtiEvent events[] = {JVMTI_EVENT_METHOD_ENTRY, JVMTI_EVENT_METHOD_EXIT, JVMTI_EVENT_VM_DEATH};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) !=
            JVMTI_ERROR_NONE)
            return JNI_ERR;
    return JNI_OK;
}
