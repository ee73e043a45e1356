/* The class file of java.lang.HprofSites, compiled from
 * java/java/lang/HprofSites.java (next to this file) and embedded at build
 * time. */
#ifndef HPROF_HEAP_SITES_CLASS_H
#define HPROF_HEAP_SITES_CLASS_H

#include <stddef.h>

extern const unsigned char hp_sites_class[];
extern const size_t hp_sites_class_len;

#endif
