#include "agent/core/class_lists.h"

/* HotSpot's largest request (MaxJNILocalCapacity's default). On HotSpot a
 * request only sets the frame's planned capacity: it allocates nothing. A
 * JVM with more classes than this gets the warning, nothing worse. */
#define ROOM 65536

static void ask_room(JNIEnv *jni)
{
    if ((*jni)->EnsureLocalCapacity(jni, ROOM) != JNI_OK) (*jni)->ExceptionClear(jni);
}

jvmtiError hp_loaded_classes(jvmtiEnv *jvmti, JNIEnv *jni, jint *n, jclass **classes)
{
    ask_room(jni);
    return (*jvmti)->GetLoadedClasses(jvmti, n, classes);
}

jvmtiError hp_loader_classes(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, jint *n,
                             jclass **classes)
{
    ask_room(jni);
    return (*jvmti)->GetClassLoaderClasses(jvmti, loader, n, classes);
}
