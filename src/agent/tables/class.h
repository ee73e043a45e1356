/* Class table: every class the agent has seen, keyed by the class object's
 * ID. Serials start at 100000 as in the original. In binary output each new
 * class is announced with LOAD CLASS before anything refers to it. */
#ifndef HPROF_CLASS_H
#define HPROF_CLASS_H

#include "agent/tables/objid.h"

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_CLASS_SERIAL_BASE 100000u

struct hp_class {
    uint32_t serial;
    hp_objid_t obj;
    char *sig;    /* JVM signature, e.g. "[Ljava/lang/String;" */
    char *name;   /* dotted, arrays as T[] */
    char *source; /* source file name, NULL if absent */
    bool unloaded;
    uint32_t generation; /* last resync that saw it loaded */
    bool pseudo;         /* hp_class_pseudo: never loaded, never unloaded */
};

void hp_class_table_init(void);
/* The class's serial, adding it (and writing LOAD CLASS) if new; 0 on failure. */
uint32_t hp_class_serial(jvmtiEnv *jvmti, jclass klass);
/* A class the JVM never loaded, named `name` (e.g. "<GC>"): the declaring
 * class of cpu=samples' pseudo-frames. It gets a serial, an object ID no
 * object has, and LOAD CLASS like any class; 0 on failure. */
uint32_t hp_class_pseudo(const char *name);
/* The serial of a class known only by name (internal form) and source file
 * (NULL: none) under `key`, e.g. one unloaded before a report named it: an
 * entry with an object ID no object has, marked unloaded; 0 on failure. */
uint32_t hp_class_serial_named(uint32_t key, const char *internal_name, const char *source);
const struct hp_class *hp_class_get(uint32_t serial);
/* Serial of an already known class object, 0 if unknown. */
uint32_t hp_class_find(hp_objid_t obj);
/* Compares the table with GetLoadedClasses: adds new classes (array classes
 * get no ClassLoad event) and writes UNLOAD CLASS for classes gone. */
void hp_class_resync(jvmtiEnv *jvmti, JNIEnv *jni);
uint32_t hp_class_count(void);

#endif
