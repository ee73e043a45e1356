#include "agent/modes/cpu_samples/method_ids.h"

#include "agent/core/class_lists.h"
#include "agent/core/error.h"

void hp_method_ids_of_class(jvmtiEnv *jvmti, jclass klass)
{
    jint n = 0;
    jmethodID *methods = NULL;
    /* Fails for classes not yet prepared (their ClassPrepare comes later)
     * and for arrays and primitives, which have no methods. */
    if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &methods) == JVMTI_ERROR_NONE)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
}

void hp_method_ids_of_loaded(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    if (!hp_jvmti_ok(jvmti, hp_loaded_classes(jvmti, jni, &n, &classes), "GetLoadedClasses"))
        return;
    for (jint i = 0; i < n; i++) {
        hp_method_ids_of_class(jvmti, classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}
