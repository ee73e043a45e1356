/* The SIGPROF handler: on the interrupted thread itself, it takes the Java
 * stack with HotSpot's AsyncGetCallTrace (which works at any instruction,
 * not only at safepoints) and queues it for the drain. */
#ifndef HPROF_CPU_SAMPLER_H
#define HPROF_CPU_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

/* Finds AsyncGetCallTrace and installs the handler; false (after an error
 * message) when this JVM has no AsyncGetCallTrace. */
bool hp_sampler_install(int depth);
void hp_sampler_enable(bool on);
/* Restores SIGPROF to "ignore" once no timer is left, so that a signal
 * still in flight cannot reach a handler of an unloaded library. */
void hp_sampler_uninstall(void);

#endif
