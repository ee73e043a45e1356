/* Recording one allocation: its site (class + the allocating thread's
 * stack), the site's counters, and a tag on the object carrying the site so
 * that the dump can count the survivors. */
#ifndef HPROF_HEAP_SITES_SAMPLED_RECORD_H
#define HPROF_HEAP_SITES_SAMPLED_RECORD_H

#include <jvmti.h>
#include <stdbool.h>

/* Starts/stops counting; allocations seen while stopped are ignored. */
void hp_sites_record_enable(bool on);
/* JVM TI SampledObjectAlloc callback: runs on the allocating thread, in
 * the allocation, before the object is returned to Java code. */
void JNICALL hp_sites_on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                       jclass klass, jlong size);

#endif
