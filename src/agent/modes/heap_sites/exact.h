/* The exact route of heap=sites: rewritten allocation sites count in Java
 * (java.lang.HprofSites, per thread, no JNI per allocation); JVM TI
 * VMObjectAlloc adds what the JVM allocates itself. Liveness comes from a
 * tagged subset of the objects and one heap walk per dump. See README.md. */
#ifndef HPROF_HEAP_SITES_EXACT_H
#define HPROF_HEAP_SITES_EXACT_H

#include "agent/core/mode.h"
#include "agent/modes/heap_sites/live.h"

#include <jvmti.h>
#include <stdbool.h>

#define HP_SITES_CLASS "java/lang/HprofSites"
/* Deeper traces take the SampledObjectAlloc route. */
#define HP_SITES_EXACT_MAX_DEPTH 31
/* Up to this depth the callers come from a window of three methods in one
 * long (HprofSites.enterWin), deeper from a shadow stack. */
#define HP_SITES_WINDOW_DEPTH 4

/* Whether the options select this route (else the SampledObjectAlloc one). */
bool hp_sites_exact_selected(void);
bool hp_sites_exact_on_load(struct hp_setup *s);
void hp_sites_exact_vm_init(jvmtiEnv *jvmti, JNIEnv *jni);
/* On a starting thread, before its first Java frame: its shadow stack. */
void hp_sites_exact_thread_start(JNIEnv *jni, jthread thread, const struct hp_thread *t);
void hp_sites_exact_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_thread *t);
/* Brings the heap=sites site counters up to date and counts the live
 * objects per site (after a forced collection). */
bool hp_sites_exact_collect(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live);
void hp_sites_exact_vm_death(jvmtiEnv *jvmti);

#endif
