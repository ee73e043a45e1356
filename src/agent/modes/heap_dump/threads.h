/* The live threads of one heap dump: thread object ID -> thread serial and
 * the serial of the thread's stack trace at the dump, gathered before the
 * walk (stack traces cannot be taken from heap callbacks). */
#ifndef HPROF_HD_THREADS_H
#define HPROF_HD_THREADS_H

#include "agent/modes/heap_dump/map.h"

#include <jvmti.h>
#include <stdint.h>

/* Fills `threads` and writes the stack traces it refers to. */
void hd_threads_load(struct hd_map *threads, jvmtiEnv *jvmti, JNIEnv *jni);
/* Serial and trace of a thread object; the unknown thread and the empty
 * trace when it is not a live thread known before the walk. */
void hd_thread_lookup(const struct hd_map *threads, uint64_t obj, uint32_t *serial,
                      uint32_t *trace);

#endif
