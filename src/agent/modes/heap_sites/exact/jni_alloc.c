/* JNI's allocating functions, wrapped: an object a native makes through
 * JNI is counted as VMObjectAlloc would count it, at the stack of the
 * native, unless a window is open (native_windows.c: then the event counts
 * it). A string's value array is counted with the string: the JVM
 * allocates both. Reflected methods and fields make several objects: their
 * functions open a window instead. Where the event stays on (JDK 21 and
 * before), it reports the objects of AllocObject, NewObject and
 * ToReflected* itself, not the strings and arrays: only those are wrapped.
 * The table handed to the JVM keeps every entry of the JVM's own, which
 * may outnumber this build's jni.h (a debugger calls IsVirtualThread at
 * each thread start); a JNI version newer than those known is not
 * wrapped. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

static struct JNINativeInterface_ original;
/* The table handed to the JVM: as many entries as the JVM's own, which
 * may be more than this build's jni.h declares. */
static void *wrapped[256];
static jfieldID f_string_value;

/* Entries in the JVM's table: each JNI version that added functions added
 * them at the end (9: GetModule, 19: IsVirtualThread, 24:
 * GetStringUTFLengthAsLong); 0 for a version past those, whose table this
 * build cannot copy whole. */
static size_t table_length(jint version)
{
    if (version > 0x00180000) return 0;
    if (version >= 0x00180000) return 236;
    if (version >= 0x00130000) return 235;
    if (version >= 0x00090000) return 234;
    return 233;
}

#define WRAP(entry, fn)                                                                            \
    (wrapped[offsetof(struct JNINativeInterface_, entry) / sizeof(void *)] = (void *)(fn))

static jobject counted(JNIEnv *e, jobject o)
{
    if (o != NULL && !hp_sites_exact_in_window()) hp_sites_exact_vm_count(hp.jvmti, e, &o, 1);
    return o;
}

static jstring counted_string(JNIEnv *e, jstring s)
{
    if (s == NULL || hp_sites_exact_in_window()) return s;
    jobject made[2] = {s, f_string_value ? (*e)->GetObjectField(e, s, f_string_value) : NULL};
    hp_sites_exact_vm_count(hp.jvmti, e, made, 2);
    if (made[1]) (*e)->DeleteLocalRef(e, made[1]);
    return s;
}

static jobject JNICALL alloc_object(JNIEnv *e, jclass c)
{
    return counted(e, original.AllocObject(e, c));
}

static jobject JNICALL new_object_v(JNIEnv *e, jclass c, jmethodID m, va_list args)
{
    return counted(e, original.NewObjectV(e, c, m, args));
}

static jobject JNICALL new_object(JNIEnv *e, jclass c, jmethodID m, ...)
{
    va_list args;
    va_start(args, m);
    jobject o = original.NewObjectV(e, c, m, args);
    va_end(args);
    return counted(e, o);
}

static jobject JNICALL new_object_a(JNIEnv *e, jclass c, jmethodID m, const jvalue *args)
{
    return counted(e, original.NewObjectA(e, c, m, args));
}

static jstring JNICALL new_string(JNIEnv *e, const jchar *u, jsize n)
{
    return counted_string(e, original.NewString(e, u, n));
}

static jstring JNICALL new_string_utf(JNIEnv *e, const char *u)
{
    return counted_string(e, original.NewStringUTF(e, u));
}

static jobjectArray JNICALL new_object_array(JNIEnv *e, jsize n, jclass c, jobject init)
{
    return counted(e, original.NewObjectArray(e, n, c, init));
}

#define NEW_ARRAY(fn, type)                                                                        \
    static type JNICALL fn##_w(JNIEnv *e, jsize n)                                                 \
    {                                                                                              \
        return counted(e, original.fn(e, n));                                                      \
    }
NEW_ARRAY(NewBooleanArray, jbooleanArray)
NEW_ARRAY(NewByteArray, jbyteArray)
NEW_ARRAY(NewCharArray, jcharArray)
NEW_ARRAY(NewShortArray, jshortArray)
NEW_ARRAY(NewIntArray, jintArray)
NEW_ARRAY(NewLongArray, jlongArray)
NEW_ARRAY(NewFloatArray, jfloatArray)
NEW_ARRAY(NewDoubleArray, jdoubleArray)
#undef NEW_ARRAY

static jobject JNICALL to_reflected_method(JNIEnv *e, jclass c, jmethodID m, jboolean is_static)
{
    hp_sites_exact_window_open(e);
    jobject r = original.ToReflectedMethod(e, c, m, is_static);
    hp_sites_exact_window_close(e);
    return r;
}

static jobject JNICALL to_reflected_field(JNIEnv *e, jclass c, jfieldID f, jboolean is_static)
{
    hp_sites_exact_window_open(e);
    jobject r = original.ToReflectedField(e, c, f, is_static);
    hp_sites_exact_window_close(e);
    return r;
}

bool hp_sites_exact_jni_wrap(jvmtiEnv *jvmti, JNIEnv *jni, bool objects)
{
    size_t n = table_length((*jni)->GetVersion(jni));
    if (n == 0 || n > sizeof wrapped / sizeof *wrapped) {
        hp_note("heap=sites: JNI version %#x is newer than this agent; objects natives make "
                "through JNI are not counted",
                (unsigned)(*jni)->GetVersion(jni));
        return true;
    }
    jclass string = (*jni)->FindClass(jni, "java/lang/String");
    f_string_value = string ? (*jni)->GetFieldID(jni, string, "value", "[B") : NULL;
    if (string) (*jni)->DeleteLocalRef(jni, string);
    (*jni)->ExceptionClear(jni);
    /* The entries used here are in every JNI version's table. */
    memcpy(&original, *jni,
           n * sizeof(void *) < sizeof original ? n * sizeof(void *) : sizeof original);
    memcpy(wrapped, *jni, n * sizeof(void *));
    if (objects) {
        WRAP(AllocObject, alloc_object);
        WRAP(NewObject, new_object);
        WRAP(NewObjectV, new_object_v);
        WRAP(NewObjectA, new_object_a);
        WRAP(ToReflectedMethod, to_reflected_method);
        WRAP(ToReflectedField, to_reflected_field);
    }
    WRAP(NewString, new_string);
    WRAP(NewStringUTF, new_string_utf);
    WRAP(NewObjectArray, new_object_array);
    WRAP(NewBooleanArray, NewBooleanArray_w);
    WRAP(NewByteArray, NewByteArray_w);
    WRAP(NewCharArray, NewCharArray_w);
    WRAP(NewShortArray, NewShortArray_w);
    WRAP(NewIntArray, NewIntArray_w);
    WRAP(NewLongArray, NewLongArray_w);
    WRAP(NewFloatArray, NewFloatArray_w);
    WRAP(NewDoubleArray, NewDoubleArray_w);
    return hp_jvmti_ok(jvmti,
                       (*jvmti)->SetJNIFunctionTable(jvmti, (const jniNativeInterface *)wrapped),
                       "SetJNIFunctionTable");
}
