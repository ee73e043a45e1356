/* Output file names: the defaults and force=n's unique naming. Pure C. */
#ifndef HPROF_NAMING_H
#define HPROF_NAMING_H

#include <stdbool.h>
#include <stddef.h>

const char *hp_default_filename(bool binary);

/* force=n and the file exists: "name.<pid>" (binary); for ascii a trailing
 * ".txt" (any case) is kept as the suffix, otherwise ".txt" is added:
 * out.txt -> out.<pid>.txt, out.log -> out.log.<pid>.txt. Returns a
 * malloc'ed string. Unlike the original, any suffix length is safe. */
char *hp_unique_filename(const char *name, bool binary, long pid);

#endif
