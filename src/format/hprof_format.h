/*
 * The binary HPROF format's vocabulary, shared by the agent (which writes it
 * and splices the JVM's own dumps) and the front end (which reads it): the
 * header, record tags, heap dump sub-record tags, basic types and the fixed
 * layouts of records. Every value is the one the format's published
 * description gives (tests/format checks them against its tables). All
 * integers in a file are big-endian; an "ID" is id_size bytes (4 or 8, from
 * the file header).
 */
#ifndef HPROF_FORMAT_H
#define HPROF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- file header ----------------------------------------------------------- */

/* The header: a version string and its NUL, u4 ID size, u8 start time (ms
 * since the epoch). 1.0.2 is 1.0.1 plus HEAP DUMP SEGMENT records. */
#define HP_VERSION_PREFIX "JAVA PROFILE 1.0."
#define HP_VERSION_1_0_1 "JAVA PROFILE 1.0.1"
#define HP_VERSION_1_0_2 "JAVA PROFILE 1.0.2"
/* The ascii format (format=a) starts with this and the date on one line. */
#define HP_ASCII_HEADER HP_VERSION_1_0_1 ", created "
enum {
    HP_HEADER_TAIL_SIZE = 4 + 8,                                    /* after the NUL */
    HP_HEADER_SIZE = sizeof HP_VERSION_1_0_2 + HP_HEADER_TAIL_SIZE, /* 31 */
};

/* The size of an ID in bytes: 4 or 8. */
typedef uint32_t hp_id_size;
static inline bool hp_id_size_valid(hp_id_size id_size)
{
    return id_size == 4 || id_size == 8;
}

/* --- records --------------------------------------------------------------- */

/* Every record starts with u1 tag, u4 microseconds since the header time,
 * u4 length of the body that follows. */
enum { HP_RECORD_HEADER_SIZE = 1 + 4 + 4 };

enum hp_record_tag {
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

/* Body sizes of the records with a fixed layout. */
static inline uint32_t hp_load_class_size(hp_id_size id) /* serial, class, trace, name */
{
    return 4 + id + 4 + id;
}
static inline uint32_t hp_frame_size(hp_id_size id) /* frame, method, sig, source, class, line */
{
    return 4 * id + 4 + 4;
}
static inline uint32_t hp_start_thread_size(hp_id_size id) /* serial, obj, trace, 3 names */
{
    return 4 + id + 4 + 3 * id;
}
enum {
    HP_SERIAL_RECORD_SIZE = 4,            /* UNLOAD CLASS, END THREAD: u4 serial */
    HP_HEAP_SUMMARY_SIZE = 4 + 4 + 8 + 8, /* live bytes, instances; alloc bytes, instances */
    HP_CONTROL_SETTINGS_SIZE = 4 + 2,     /* u4 flags, u2 stack depth */
    /* Records that end in a list: a fixed part, then count entries. */
    HP_TRACE_FIXED_SIZE = 4 + 4 + 4, /* serial, thread serial, frame count; then IDs */
    HP_ALLOC_SITES_FIXED_SIZE = 2 + 4 + 4 + 4 + 8 + 8 + 4, /* flags .. site count */
    HP_ALLOC_SITE_SIZE = 1 + 6 * 4,                        /* array type, class, trace, 4 counts */
    HP_CPU_SAMPLES_FIXED_SIZE = 4 + 4,                     /* total samples, trace count */
    HP_CPU_SAMPLE_SIZE = 4 + 4,                            /* samples, trace serial */
};

/* CONTROL SETTINGS flags. */
enum { HP_CONTROL_ALLOC_TRACES = 0x1, HP_CONTROL_CPU_SAMPLING = 0x2 };
/* ALLOC SITES flags. */
enum {
    HP_SITES_INCREMENTAL = 0x1, /* only sites changed since the last report */
    HP_SITES_BY_ALLOC = 0x2,    /* sorted by allocated bytes, not live bytes */
    HP_SITES_FORCE_GC = 0x4,    /* collect first */
};

/* --- heap dump sub-records ------------------------------------------------- */

/* Sub-records of HEAP DUMP and HEAP DUMP SEGMENT, each a u1 tag then a body.
 * 0x89..0xFE are Android (ART) extensions the front end reads too. */
enum hp_sub_tag {
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

/* Body size (after the tag) of one of the format's GC roots (0x01..0x08,
 * 0xFF); 0 for any other tag. */
static inline uint32_t hp_root_size(uint8_t tag, hp_id_size id)
{
    switch (tag) {
    case HP_ROOT_UNKNOWN:
    case HP_ROOT_STICKY_CLASS:
    case HP_ROOT_MONITOR_USED:
        return id; /* object */
    case HP_ROOT_JNI_GLOBAL:
        return id + id; /* object, global ref */
    case HP_ROOT_NATIVE_STACK:
    case HP_ROOT_THREAD_BLOCK:
        return id + 4; /* object, thread serial */
    case HP_ROOT_JNI_LOCAL:
    case HP_ROOT_JAVA_FRAME:
    case HP_ROOT_THREAD_OBJECT:
        return id + 4 + 4; /* object, thread serial, frame number or trace */
    default:
        return 0;
    }
}

/* Offsets in a sub-record's body (after the tag) of the fields the readers
 * and the splicer pick out, and the size of the fixed part before the
 * variable one (elements, field values, class lists). */
/* CLASS, INSTANCE and ARRAY dumps start with their object ID, then the u4
 * trace serial. */
static inline uint32_t hp_sub_trace_at(hp_id_size id)
{
    return id;
}
/* CLASS DUMP up to its constant pool count: class, trace, super, loader,
 * signers, domain, 2 reserved, instance size. */
static inline uint32_t hp_class_dump_fixed_size(hp_id_size id)
{
    return id + 4 + 6 * id + 4;
}
/* INSTANCE DUMP: object, trace, class, u4 byte count; then the values. */
static inline uint32_t hp_instance_dump_fixed_size(hp_id_size id)
{
    return id + 4 + id + 4;
}
static inline uint32_t hp_instance_dump_count_at(hp_id_size id)
{
    return id + 4 + id;
}
/* OBJECT and PRIMITIVE ARRAY DUMP: array, trace, u4 element count, then the
 * array class ID (object arrays) or a u1 element type (primitive ones). */
static inline uint32_t hp_array_dump_count_at(hp_id_size id)
{
    return id + 4;
}
static inline uint32_t hp_obj_array_dump_fixed_size(hp_id_size id)
{
    return id + 4 + 4 + id;
}
static inline uint32_t hp_prim_array_dump_fixed_size(hp_id_size id)
{
    return id + 4 + 4 + 1;
}

/* --- basic types ----------------------------------------------------------- */

/* Types of fields, constant pool entries and array elements. */
enum hp_basic_type {
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

/* Size in bytes of a value of basic type `type` (id_size for objects); 0 if
 * `type` is not a basic type. */
unsigned hp_type_size(uint8_t type, hp_id_size id_size);
/* Java keyword of a basic type ("int", "Object"), or NULL if not valid. */
const char *hp_type_name(uint8_t type);
/* Whether `type` may be the element type of a PRIMITIVE ARRAY DUMP. */
bool hp_is_prim_type(uint8_t type);
/* The basic type of a JVM field descriptor's first character ('L' and '['
 * are objects); 0 if it starts no field type. */
uint8_t hp_type_of_descriptor(char first);
/* The Java keyword of a primitive type's descriptor ('I' -> "int"), or NULL. */
const char *hp_descriptor_keyword(char c);

/* Name of a record tag ("LOAD CLASS"; the format's STRING IN UTF8, STACK
 * FRAME and STACK TRACE are "UTF8", "FRAME", "TRACE"), or NULL if unknown. */
const char *hp_tag_name(uint8_t tag);
/* Name of a heap dump sub-record tag, or NULL if unknown. */
const char *hp_sub_name(uint8_t tag);

#endif
