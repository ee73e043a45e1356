/* Java type names as HPROF prints them: dotted, arrays as "T[]". Pure C. */
#ifndef HPROF_NAMES_H
#define HPROF_NAMES_H

#include <stddef.h>

/* "Ljava/lang/String;" -> "java.lang.String", "[[I" -> "int[][]".
 * Returns a malloc'ed string; NULL only when out of memory. */
char *hp_sig_to_name(const char *sig);

#endif
