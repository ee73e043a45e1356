/* HPROF binary format constants and small pure helpers (no I/O). */
#ifndef HPROF_CLI_FORMAT_H
#define HPROF_CLI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Top-level record tags. */
enum {
    HP_UTF8 = 0x01,
    HP_LOAD_CLASS = 0x02,
    HP_UNLOAD_CLASS = 0x03,
    HP_FRAME = 0x04,
    HP_TRACE = 0x05,
    HP_ALLOC_SITES = 0x06,
    HP_HEAP_SUMMARY = 0x07,
    HP_START_THREAD = 0x0A,
    HP_END_THREAD = 0x0B,
    HP_HEAP_DUMP = 0x0C,
    HP_CPU_SAMPLES = 0x0D,
    HP_CONTROL_SETTINGS = 0x0E,
    HP_HEAP_DUMP_SEGMENT = 0x1C,
    HP_HEAP_DUMP_END = 0x2C,
};

/* Heap dump sub-record tags; 0x89..0xFE are the Android (ART) extensions. */
enum {
    HP_ROOT_UNKNOWN = 0xFF,
    HP_ROOT_JNI_GLOBAL = 0x01,
    HP_ROOT_JNI_LOCAL = 0x02,
    HP_ROOT_JAVA_FRAME = 0x03,
    HP_ROOT_NATIVE_STACK = 0x04,
    HP_ROOT_STICKY_CLASS = 0x05,
    HP_ROOT_THREAD_BLOCK = 0x06,
    HP_ROOT_MONITOR_USED = 0x07,
    HP_ROOT_THREAD_OBJECT = 0x08,
    HP_ROOT_INTERNED_STRING = 0x89,
    HP_ROOT_FINALIZING = 0x8A,
    HP_ROOT_DEBUGGER = 0x8B,
    HP_ROOT_REFERENCE_CLEANUP = 0x8C,
    HP_ROOT_VM_INTERNAL = 0x8D,
    HP_ROOT_JNI_MONITOR = 0x8E,
    HP_ROOT_UNREACHABLE = 0x90,
    HP_CLASS_DUMP = 0x20,
    HP_INSTANCE_DUMP = 0x21,
    HP_OBJ_ARRAY_DUMP = 0x22,
    HP_PRIM_ARRAY_DUMP = 0x23,
    HP_PRIM_ARRAY_NODATA = 0xC3,
    HP_HEAP_DUMP_INFO = 0xFE,
};

/* Basic types used for fields and primitive arrays. */
enum {
    HP_T_OBJECT = 2,
    HP_T_BOOLEAN = 4,
    HP_T_CHAR = 5,
    HP_T_FLOAT = 6,
    HP_T_DOUBLE = 7,
    HP_T_BYTE = 8,
    HP_T_SHORT = 9,
    HP_T_INT = 10,
    HP_T_LONG = 11,
};

/* Name of a top-level tag, or NULL if the tag is not a known record kind. */
const char *hp_tag_name(uint8_t tag);
/* Name of a heap sub-record tag, or NULL if unknown. */
const char *hp_sub_name(uint8_t tag);
/* Size in bytes of a value of basic type `type`; 0 if `type` is not valid. */
unsigned hp_type_size(uint8_t type, uint32_t id_size);
/* Java keyword of a basic type ("int", "Object"), or NULL if not valid. */
const char *hp_type_name(uint8_t type);
/* Whether `type` may be the element type of a PRIMITIVE ARRAY DUMP. */
int hp_is_prim_type(uint8_t type);

/*
 * Writes the Java source form of a class name into out (NUL-terminated,
 * truncated to cap): "java/lang/String" -> "java.lang.String",
 * "[I" -> "int[]", "[[Ljava/lang/Object;" -> "java.lang.Object[][]".
 * Names already in that form ("char[]", dotted) pass through unchanged.
 */
void hp_java_class_name(const uint8_t *name, size_t len, char *out, size_t cap);

#endif
