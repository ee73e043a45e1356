/* AsyncGetCallTrace reports a frame's method by jmethodID, and HotSpot
 * creates jmethodIDs lazily; a signal handler cannot create them. Asking
 * for a class's methods once creates them all, ahead of any sample. */
#ifndef HPROF_CPU_METHOD_IDS_H
#define HPROF_CPU_METHOD_IDS_H

#include <jvmti.h>

void hp_method_ids_of_class(jvmtiEnv *jvmti, jclass klass);
/* For the classes loaded before VM_INIT. */
void hp_method_ids_of_loaded(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
