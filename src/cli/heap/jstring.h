/* The characters of java.lang.String objects, for display. */
#ifndef HPROF_CLI_HEAP_JSTRING_H
#define HPROF_CLI_HEAP_JSTRING_H

#include <stdio.h>

#include "cli/heap/graph.h"

/*
 * If obj is a java.lang.String whose characters are in the dump, stores up to
 * `max` UTF-16 code units in out and returns the string's length; otherwise
 * returns -1. Reads JDK 9+ byte[] values (Latin-1, or UTF-16 in the VM's byte
 * order, little-endian on x86 and arm64) and JDK 8 char[] values.
 */
long hp_jstring(const hp_graph *g, uint32_t obj, uint16_t *out, size_t max);

/* Encodes one code unit as UTF-8 (surrogates as U+FFFD) into u (NUL-terminated). */
void hp_utf8(unsigned c, char u[4]);

/* Writes a String's value quoted, JSON-escaped, at most `max` characters then
 * "..."; returns 0 if obj is not a String with its characters in the dump. */
int hp_jstring_print(FILE *out, const hp_graph *g, uint32_t obj, size_t max);

#endif
