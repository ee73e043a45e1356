/* pause=y: hold the JVM at load so that a debugger can attach. */
#ifndef HPROF_PAUSE_H
#define HPROF_PAUSE_H

#include <stdatomic.h>

/* A debugger ends the pause early with `set var hp_pause_waiting = 0`; atomic
 * because another thread may clear it too (the unit test does). */
extern atomic_int hp_pause_waiting;

/* Prints "HPROF pause for PID <pid>" and waits until hp_pause_waiting is
 * cleared, checking every step_ms, at most max_ms in all (the original:
 * 10-second steps, 600 s). */
void hp_pause(unsigned step_ms, unsigned max_ms);

#endif
