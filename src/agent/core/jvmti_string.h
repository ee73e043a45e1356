/* Strings JVM TI allocates: copied to the C heap, the original freed. */
#ifndef HPROF_JVMTI_STRING_H
#define HPROF_JVMTI_STRING_H

#include <jvmti.h>

/* A malloc'ed copy of s (NULL for NULL); s is given back to JVM TI. */
char *hp_take_jvmti_string(jvmtiEnv *jvmti, char *s);

#endif
