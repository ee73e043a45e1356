/* The cpu=times reports: the JDK 8 agent's CPU TIME (ms) table and cpu=old's
 * imitation of the old -prof format, from the rows of one dump interval. */
#ifndef HPROF_CPU_TIMES_REPORT_H
#define HPROF_CPU_TIMES_REPORT_H

#include "agent/modes/cpu_times/collect.h"

#include <stddef.h>

/* Both sort `rows` in place. */
void hp_ct_report_times(struct hp_ct_row *rows, size_t n);
void hp_ct_report_old(struct hp_ct_row *rows, size_t n);

#endif
