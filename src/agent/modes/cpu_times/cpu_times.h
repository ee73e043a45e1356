/* cpu=times and cpu=old: exact call counts and per-method CPU time from
 * method entry/exit calls injected by the instrument component. */
#ifndef HPROF_CPU_TIMES_H
#define HPROF_CPU_TIMES_H

#include "agent/core/mode.h"

extern const struct hp_mode hp_mode_cpu_times;

/* Frames per trace: depth=, or 2 for cpu=old. */
int hp_ct_depth(void);

#endif
