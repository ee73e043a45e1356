/* monitor=y: contended monitor time per (trace, class), WAIT/WAITED lines
 * as they happen, and a snapshot of threads and owned monitors per dump. */
#ifndef HPROF_MODE_MONITOR_H
#define HPROF_MODE_MONITOR_H

#include "agent/core/mode.h"

extern const struct hp_mode hp_mode_monitor;

/* Writes MONITOR DUMP: every live thread with its stack and state, and
 * every monitor some thread owns (snapshot.c). */
void hp_monitor_snapshot(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
