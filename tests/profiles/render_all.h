/* Shared by the unit test and the fuzzer: one input through the loader (each
 * kind asked for in turn) and every renderer, with every value. */
#ifndef HPROF_TESTS_PROFILES_RENDER_ALL_H
#define HPROF_TESTS_PROFILES_RENDER_ALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Returns how many renderer calls failed (loading may fail: hostile input). */
int render_all(FILE *sink, const uint8_t *data, size_t size);

#endif
