/* Class and method numbers given to rewritten classes, and their way back to
 * jmethodIDs. cnum counts classes as the hook sees them (from 1); mnum counts
 * methods of all classes (from 0), so an mnum alone names a method. Entries
 * are never removed; storage is paged so numbering takes no lock. */
#ifndef HPROF_INSTRUMENT_NUMBERS_H
#define HPROF_INSTRUMENT_NUMBERS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* A new class number for `name` (internal form) defined by `loader` (NULL:
 * the boot loader; `jni` may then be NULL). 0 when out of memory. */
uint32_t hp_num_class(JNIEnv *jni, const char *name, jobject loader);
/* A new method number of class cnum, or -1 when out of memory. */
int hp_num_method(uint32_t cnum, const char *name, const char *desc);
/* Records the numbered methods of class cnum once it is rewritten. */
void hp_num_class_methods(uint32_t cnum, const int *mnums, uint32_t n);
/* Marks mnum's class for the next hp_num_resolve. */
void hp_num_want(int mnum);
/* Finds the jmethodIDs of the wanted classes that are loaded now. */
void hp_num_resolve(jvmtiEnv *jvmti, JNIEnv *jni);
jmethodID hp_num_method_id(int mnum);

#endif
