/* Reads the per-thread data of java.lang.HprofTracker at a dump. Counters in
 * the tracker only grow; per thread state, what was reported at the last
 * dump is remembered, so each dump reports the calls completed since the
 * previous one (the "reset after each dump" of the original) without ever
 * writing to data another thread is updating. */
#ifndef HPROF_CPU_TIMES_COLLECT_H
#define HPROF_CPU_TIMES_COLLECT_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* Completed calls and time per trace serial since the last dump. */
struct hp_ct_row {
    uint32_t trace;
    uint32_t count;
    uint64_t self_ns, total_ns;
};

/* Frames per trace: depth=, or 2 for cpu=old. */
int hp_ct_depth(void);
/* Looks up the tracker's fields and methods; false if they are missing. */
bool hp_ct_collect_init(JNIEnv *jni, jclass tracker);
/* On an ending thread: takes in its data and drops its tracker state. */
void hp_ct_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t serial);
/* At the stop of a recording in a live VM: drops what was read and reported,
 * so that the next recording (with new tracker states) starts afresh. */
void hp_ct_collect_forget(void);
/* The rows (malloc'd, *n of them, every trace with calls) since the last
 * dump; NULL with *n = 0 when there is nothing or on failure. */
struct hp_ct_row *hp_ct_collect(jvmtiEnv *jvmti, JNIEnv *jni, size_t *n);

#endif
