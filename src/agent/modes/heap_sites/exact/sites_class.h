/* The class files of java.lang.HprofSites, compiled from
 * java/java/lang/HprofSites.java (next to this file) and embedded at build
 * time: hp_sites_class keeps each thread's state in fields the rewriter adds
 * to java.lang.Thread (a recording started with the JVM), hp_sites_attach_class
 * in a table (attached; see variant/). */
#ifndef HPROF_HEAP_SITES_CLASS_H
#define HPROF_HEAP_SITES_CLASS_H

#include <stddef.h>

extern const unsigned char hp_sites_class[];
extern const size_t hp_sites_class_len;
extern const unsigned char hp_sites_attach_class[];
extern const size_t hp_sites_attach_class_len;

#endif
