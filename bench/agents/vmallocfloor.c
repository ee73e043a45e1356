/*
 * Minimal JVM TI agent for the exact heap=sites comparison: enables
 * VMObjectAlloc with a callback that only counts. Exact heap=sites needs the
 * event for the objects the JVM makes outside bytecode; while it is on, JDK
 * 25's C2 compiles no Unsafe.allocateInstance intrinsic, so every object a
 * method handle constructs (capturing lambdas, reflective `new`) is made by
 * the runtime and posts the event. This agent shows that cost before any
 * agent work. Prints the count at VM death.
 */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

static unsigned long long events;

static void JNICALL on_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                             jclass klass, jlong size)
{
    (void)jvmti, (void)jni, (void)thread, (void)object, (void)klass, (void)size;
    __atomic_fetch_add(&events, 1, __ATOMIC_RELAXED);
}

static void JNICALL on_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    fprintf(stderr, "vmallocfloor: %llu events\n", __atomic_load_n(&events, __ATOMIC_RELAXED));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)options, (void)reserved;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_vm_object_alloc_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) return JNI_ERR;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMObjectAlloc = on_alloc;
    cb.VMDeath = on_death;
    if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE) return JNI_ERR;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}
