/* The coarse clock of cpu=times: an agent thread stores the monotonic clock
 * into HprofTracker.clock every HP_CT_TICK_NS, so that the tracker's hot
 * path reads a field instead of calling System.nanoTime (see the tracker). */
#ifndef HPROF_CPU_TIMES_TICKER_H
#define HPROF_CPU_TIMES_TICKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

/* Each tick costs the ticker a wake-up (about 1-2% of the JVM's CPU time at
 * 250 µs on the bench programs); calls are charged whole ticks, which is
 * unbiased at any period. */
#define HP_CT_TICK_NS 1000000

/* Sets the clock once and starts the thread; false if either fails. */
bool hp_ct_ticker_start(jvmtiEnv *jvmti, JNIEnv *jni, jclass tracker);
/* Makes the thread stop at its next tick (nothing waits for it). */
void hp_ct_ticker_stop(void);

#endif
