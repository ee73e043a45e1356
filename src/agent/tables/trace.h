/* Trace table: (thread serial with thread=y, frames) -> trace serial. Serials
 * start at 300000, which is always the empty trace (unknown sites). Traces
 * are written once each, lazily, before the first record that cites them. */
#ifndef HPROF_TRACE_H
#define HPROF_TRACE_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_TRACE_SERIAL_BASE 300000u
#define HP_TRACE_EMPTY HP_TRACE_SERIAL_BASE

struct hp_trace {
    uint32_t serial;
    uint32_t thread_serial; /* 0 unless thread=y */
    uint32_t n_frames;
    const uint32_t *frames; /* frame IDs, top first */
    atomic_bool written;
};

/* Creates the table and the empty trace 300000. */
void hp_trace_table_init(void);
uint32_t hp_trace_intern(uint32_t thread_serial, const uint32_t *frame_ids, uint32_t n);
/* Frames a sampler takes beyond depth=, for the agent's own frames that
 * traces leave out (hp_trace_agent_frames). */
#define HP_TRACE_AGENT_SLACK 8
/* How many of the top frames are the agent's (java.lang.Hprof*, with the
 * JDK methods they call above them): traces start below them. */
jint hp_trace_agent_frames(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint n);
/* Interns JVM TI frames (from GetStackTrace or a sampler). */
uint32_t hp_trace_from_frames(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint n,
                              uint32_t thread_serial);
/* Captures `thread`'s stack (NULL: the caller's), skipping `skip` top frames,
 * at most depth= frames. Returns the empty trace when it cannot. */
uint32_t hp_trace_capture(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jint skip,
                          uint32_t thread_serial);
const struct hp_trace *hp_trace_get(uint32_t serial);
/* Writes the trace if it was not written before. */
void hp_trace_write(uint32_t serial);
/* Writes every trace not written yet, in serial order. */
void hp_trace_write_unwritten(void);

#endif
