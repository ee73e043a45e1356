/* Rendering field values and java.lang.String contents for the pages. */
#ifndef HPROF_CLI_SERVE_VALUES_H
#define HPROF_CLI_SERVE_VALUES_H

#include "cli/serve/web.h"

/* A primitive of basic type `type` (value zero-extended from the dump) as Java source text. */
void hp_format_prim(uint8_t type, uint64_t raw, char *buf, size_t cap);
/* A field or element value: a link for a reference, "null", or the primitive. */
void hp_web_value(hp_html *out, const hp_web *w, uint8_t type, uint64_t raw);
/* If obj is a java.lang.String whose characters are in the dump, appends them
 * (escaped, quoted, at most `max` characters) and returns 1. */
int hp_web_string(hp_html *out, const hp_web *w, uint32_t obj, size_t max);

#endif
