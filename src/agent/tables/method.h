/* Method table: what a jmethodID names, resolved once (HotSpot never reuses
 * jmethodIDs, so the pointer is a stable key). */
#ifndef HPROF_METHOD_H
#define HPROF_METHOD_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct hp_method {
    uint32_t class_serial; /* 0 if the declaring class could not be found */
    char *name;            /* NULL: "<Unknown Method>" */
    char *sig;
    bool native;
    /* Declared by one of the agent's own Java classes (java.lang.Hprof*,
     * defined by instrument/): never shown in a trace. */
    bool agent;
    jint n_lines; /* -1: no line table */
    jvmtiLineNumberEntry *lines;
};

void hp_method_table_init(void);
/* Never NULL after init: unresolvable methods get an entry with NULL name. */
const struct hp_method *hp_method_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m);
/* Adds a method that no jmethodID names (cpu=samples' pseudo-frames, such
 * as "<GC>.workers"), keyed by `key`: an address the agent owns, which can
 * never be a jmethodID, so hp_method_get finds it and never asks the JVM. */
void hp_method_define(const void *key, const struct hp_method *m);
/* Line of a bytecode location: > 0, or 0 (no line table), -1 (unknown
 * location), -3 (native method), the values of the binary FRAME record. */
int32_t hp_method_line(const struct hp_method *m, jlocation loc);

#endif
