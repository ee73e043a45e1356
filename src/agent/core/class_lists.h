/* JVM TI's lists of classes, with room for their local references asked
 * for first. Each class comes back as a JNI local reference; a frame is
 * promised only 16, and under -Xcheck:jni HotSpot warns at the next JNI
 * call once more are live than were asked for ("JNI local refs: 646,
 * exceeds capacity: 32"). Asking afterwards is too late: the request is a
 * JNI call and is checked too. */
#ifndef HPROF_CORE_CLASS_LISTS_H
#define HPROF_CORE_CLASS_LISTS_H

#include <jni.h>
#include <jvmti.h>

/* GetLoadedClasses. */
jvmtiError hp_loaded_classes(jvmtiEnv *jvmti, JNIEnv *jni, jint *n, jclass **classes);
/* GetClassLoaderClasses. */
jvmtiError hp_loader_classes(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, jint *n,
                             jclass **classes);

#endif
