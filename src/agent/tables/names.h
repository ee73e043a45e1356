/* Java type names as HPROF prints them: dotted, arrays as "T[]". Pure C. */
#ifndef HPROF_NAMES_H
#define HPROF_NAMES_H

#include <stddef.h>

/* "Ljava/lang/String;" -> "java.lang.String", "[[I" -> "int[][]".
 * Returns a malloc'ed string; NULL only when out of memory. */
char *hp_sig_to_name(const char *sig);

/* Basic type code of the format (2 object, 4 boolean ... 11 long) for a
 * field signature's first character; 0 if not a valid type. */
int hp_basic_type(char sig0);
/* Size in bytes of a value of that basic type, with `id_size` for objects. */
int hp_basic_type_size(int type, int id_size);

#endif
