/* Names and sizes of the format's tags and basic types. */
#include "format/hprof_format.h"

const char *hp_tag_name(uint8_t tag)
{
    switch (tag) {
    case HP_UTF8:
        return "UTF8";
    case HP_LOAD_CLASS:
        return "LOAD CLASS";
    case HP_UNLOAD_CLASS:
        return "UNLOAD CLASS";
    case HP_FRAME:
        return "FRAME";
    case HP_TRACE:
        return "TRACE";
    case HP_ALLOC_SITES:
        return "ALLOC SITES";
    case HP_HEAP_SUMMARY:
        return "HEAP SUMMARY";
    case HP_START_THREAD:
        return "START THREAD";
    case HP_END_THREAD:
        return "END THREAD";
    case HP_HEAP_DUMP:
        return "HEAP DUMP";
    case HP_CPU_SAMPLES:
        return "CPU SAMPLES";
    case HP_CONTROL_SETTINGS:
        return "CONTROL SETTINGS";
    case HP_HEAP_DUMP_SEGMENT:
        return "HEAP DUMP SEGMENT";
    case HP_HEAP_DUMP_END:
        return "HEAP DUMP END";
    default:
        return NULL;
    }
}

const char *hp_sub_name(uint8_t tag)
{
    switch (tag) {
    case HP_ROOT_UNKNOWN:
        return "ROOT UNKNOWN";
    case HP_ROOT_JNI_GLOBAL:
        return "ROOT JNI GLOBAL";
    case HP_ROOT_JNI_LOCAL:
        return "ROOT JNI LOCAL";
    case HP_ROOT_JAVA_FRAME:
        return "ROOT JAVA FRAME";
    case HP_ROOT_NATIVE_STACK:
        return "ROOT NATIVE STACK";
    case HP_ROOT_STICKY_CLASS:
        return "ROOT STICKY CLASS";
    case HP_ROOT_THREAD_BLOCK:
        return "ROOT THREAD BLOCK";
    case HP_ROOT_MONITOR_USED:
        return "ROOT MONITOR USED";
    case HP_ROOT_THREAD_OBJECT:
        return "ROOT THREAD OBJECT";
    case HP_ROOT_INTERNED_STRING:
        return "ROOT INTERNED STRING";
    case HP_ROOT_FINALIZING:
        return "ROOT FINALIZING";
    case HP_ROOT_DEBUGGER:
        return "ROOT DEBUGGER";
    case HP_ROOT_REFERENCE_CLEANUP:
        return "ROOT REFERENCE CLEANUP";
    case HP_ROOT_VM_INTERNAL:
        return "ROOT VM INTERNAL";
    case HP_ROOT_JNI_MONITOR:
        return "ROOT JNI MONITOR";
    case HP_ROOT_UNREACHABLE:
        return "ROOT UNREACHABLE";
    case HP_CLASS_DUMP:
        return "CLASS DUMP";
    case HP_INSTANCE_DUMP:
        return "INSTANCE DUMP";
    case HP_OBJ_ARRAY_DUMP:
        return "OBJECT ARRAY DUMP";
    case HP_PRIM_ARRAY_DUMP:
        return "PRIMITIVE ARRAY DUMP";
    case HP_PRIM_ARRAY_NODATA:
        return "PRIMITIVE ARRAY NODATA";
    case HP_HEAP_DUMP_INFO:
        return "HEAP DUMP INFO";
    default:
        return NULL;
    }
}

unsigned hp_type_size(uint8_t type, hp_id_size id_size)
{
    switch (type) {
    case HP_T_OBJECT:
        return id_size;
    case HP_T_BOOLEAN:
    case HP_T_BYTE:
        return 1;
    case HP_T_CHAR:
    case HP_T_SHORT:
        return 2;
    case HP_T_FLOAT:
    case HP_T_INT:
        return 4;
    case HP_T_DOUBLE:
    case HP_T_LONG:
        return 8;
    default:
        return 0;
    }
}

const char *hp_type_name(uint8_t type)
{
    static const char *const names[] = {
        [HP_T_OBJECT] = "Object", [HP_T_BOOLEAN] = "boolean", [HP_T_CHAR] = "char",
        [HP_T_FLOAT] = "float",   [HP_T_DOUBLE] = "double",   [HP_T_BYTE] = "byte",
        [HP_T_SHORT] = "short",   [HP_T_INT] = "int",         [HP_T_LONG] = "long"};
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

bool hp_is_prim_type(uint8_t type)
{
    return type >= HP_T_BOOLEAN && type <= HP_T_LONG;
}

const char *hp_descriptor_keyword(char c)
{
    uint8_t type = hp_type_of_descriptor(c);
    return type == HP_T_OBJECT ? NULL : hp_type_name(type);
}

uint8_t hp_type_of_descriptor(char first)
{
    switch (first) {
    case 'L':
    case '[':
        return HP_T_OBJECT;
    case 'Z':
        return HP_T_BOOLEAN;
    case 'C':
        return HP_T_CHAR;
    case 'F':
        return HP_T_FLOAT;
    case 'D':
        return HP_T_DOUBLE;
    case 'B':
        return HP_T_BYTE;
    case 'S':
        return HP_T_SHORT;
    case 'I':
        return HP_T_INT;
    case 'J':
        return HP_T_LONG;
    default:
        return 0;
    }
}
