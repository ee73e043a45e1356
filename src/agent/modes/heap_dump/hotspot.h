/* heap=dump in binary without heap=sites: HotSpot dumps the live heap to a
 * temporary file (HotSpotDiagnosticMXBean.dumpHeap through JNI) and
 * splice.c copies it into the output. */
#ifndef HPROF_HD_HOTSPOT_H
#define HPROF_HD_HOTSPOT_H

#include <jni.h>
#include <stdbool.h>

/* Writes one heap dump; false when nothing was written and the caller should
 * walk the heap itself (the reason is reported). */
bool hd_hotspot_dump(JNIEnv *jni);

#endif
