/* The class file of java.lang.HprofTracker, compiled from java/ and embedded
 * at build time (see embed.cmake). */
#ifndef HPROF_TRACKER_H
#define HPROF_TRACKER_H

#include <stddef.h>

extern const unsigned char hp_tracker_class[];
extern const size_t hp_tracker_class_len;

#endif
