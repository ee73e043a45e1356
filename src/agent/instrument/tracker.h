/* The class files of java.lang.HprofTracker, compiled from java/ and embedded
 * at build time (see embed.cmake): the build that finds each thread's state
 * through Thread.hprofTracker, and the one that keeps its own table
 * (variant/). */
#ifndef HPROF_TRACKER_H
#define HPROF_TRACKER_H

#include <stddef.h>

extern const unsigned char hp_tracker_class[];
extern const size_t hp_tracker_class_len;
extern const unsigned char hp_tracker_table_class[];
extern const size_t hp_tracker_table_class_len;

#endif
