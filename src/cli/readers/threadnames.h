/* Names of Thread objects in a heap dump, read from Thread.name -> String. */
#ifndef HPROF_CLI_THREADNAMES_H
#define HPROF_CLI_THREADNAMES_H

#include "cli/readers/index.h"

/*
 * `names` arrives keyed by thread object IDs (values ignored). On return each
 * value is a malloc'd UTF-8 name cast to uint64_t, or 0 where the name could
 * not be resolved. Handles JDK 9+ compact strings (byte[] + coder) and
 * JDK 8 char[] values. Costs four passes over the dump.
 */
int hp_thread_names(const hp_index *ix, size_t d, hp_idmap *names, hp_error *err);
/* Frees the strings hp_thread_names() stored. */
void hp_thread_names_free(hp_idmap *names);

#endif
