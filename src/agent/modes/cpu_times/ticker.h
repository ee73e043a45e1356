/* The coarse clock of cpu=times: an agent thread stores the monotonic clock
 * into HprofTracker.clock every HP_CT_TICK_NS, so that the tracker's hot
 * path reads a field instead of calling System.nanoTime (see the tracker). */
#ifndef HPROF_CPU_TIMES_TICKER_H
#define HPROF_CPU_TIMES_TICKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#define HP_CT_TICK_NS 250000

/* Sets the clock once and starts the thread; false if either fails. */
bool hp_ct_ticker_start(jvmtiEnv *jvmti, JNIEnv *jni, jclass tracker);
/* Makes the thread stop at its next tick (nothing waits for it). */
void hp_ct_ticker_stop(void);

#endif
