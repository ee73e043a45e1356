/* Class and method numbers given to rewritten classes, and their way back to
 * jmethodIDs. cnum counts classes as the hook sees them (from 1); mnum counts
 * methods of all classes (from 0), so an mnum alone names a method. Entries
 * are never removed (a retransformed class reuses its numbers); storage is paged so numbering takes
 * no lock. */
#ifndef HPROF_INSTRUMENT_NUMBERS_H
#define HPROF_INSTRUMENT_NUMBERS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* A new class number for `name` (internal form) defined by `loader` (NULL:
 * the boot loader; `jni` may then be NULL). 0 when out of memory. */
uint32_t hp_num_class(JNIEnv *jni, const char *name, jobject loader);
/* A new method number of class cnum, or -1 when out of memory. */
int hp_num_method(uint32_t cnum, const char *name, const char *desc);
/* A class retransformed (by a later attach, or after a stop): the number
 * an earlier rewrite gave the loaded class `name` of `loader`, 0 if none;
 * its methods keep their numbers too (hp_num_method_again), so that
 * attaching again and again numbers nothing new. */
uint32_t hp_num_class_again(JNIEnv *jni, const char *name, jobject loader);
/* The number method name+desc of class cnum had, or a new one. */
int hp_num_method_again(uint32_t cnum, const char *name, const char *desc);
/* Records the numbered methods of class cnum once it is rewritten. */
void hp_num_class_methods(uint32_t cnum, const int *mnums, uint32_t n);
/* Marks mnum's class for the next hp_num_resolve. */
void hp_num_want(int mnum);
/* Finds the jmethodIDs of the wanted classes that are loaded now. */
void hp_num_resolve(jvmtiEnv *jvmti, JNIEnv *jni);
jmethodID hp_num_method_id(int mnum);

/* What the rewriter saw, kept after the class is unloaded: the class's
 * SourceFile (NULL: none), and per method an object a client owns (set once:
 * false if another was set first). */
void hp_num_class_source(uint32_t cnum, const uint8_t *source, uint16_t len);
struct hp_num_names {
    uint32_t cnum;
    const char *class_name, *source, *name, *desc;
};
bool hp_num_names(int mnum, struct hp_num_names *out);
bool hp_num_set_extra(int mnum, void *extra);
/* A new number standing for method mnum (sharing its names, class and
 * jmethodID, with an extra of its own), -1 when out of memory. */
int hp_num_alias(int mnum);
/* The method a number stands for: mnum itself unless it is an alias. */
int hp_num_base(int number);
void *hp_num_extra(int mnum);

#endif
