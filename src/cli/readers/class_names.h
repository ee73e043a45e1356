/* The format's vocabulary (format/hprof_format.h) and the Java form of
 * class names. */
#ifndef HPROF_CLI_FORMAT_H
#define HPROF_CLI_FORMAT_H

#include "format/hprof_format.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Writes the Java source form of a class name into out (NUL-terminated,
 * truncated to cap): "java/lang/String" -> "java.lang.String",
 * "[I" -> "int[]", "[[Ljava/lang/Object;" -> "java.lang.Object[][]".
 * Names already in that form ("char[]", dotted) pass through unchanged.
 */
void hp_java_class_name(const uint8_t *name, size_t len, char *out, size_t cap);

#endif
