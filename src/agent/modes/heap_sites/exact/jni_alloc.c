/* JNI's allocating functions, wrapped where VMObjectAlloc is on only in
 * windows (native_windows.c): an object a native makes through JNI is
 * counted as the event would count it, at the stack of the native, unless
 * a window is open (then the event counts it). A string's value array is
 * counted with the string: the JVM allocates both. Reflected methods and
 * fields make several objects: their functions open a window instead. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <stdarg.h>

static struct JNINativeInterface_ original;
static struct JNINativeInterface_ wrapped;
static jfieldID f_string_value;

static jobject counted(JNIEnv *e, jobject o)
{
    if (o != NULL && !hp_sites_exact_in_window()) hp_sites_exact_vm_count(hp.jvmti, e, o);
    return o;
}

static jstring counted_string(JNIEnv *e, jstring s)
{
    if (s == NULL || hp_sites_exact_in_window()) return s;
    hp_sites_exact_vm_count(hp.jvmti, e, s);
    jobject value = f_string_value ? (*e)->GetObjectField(e, s, f_string_value) : NULL;
    if (value) {
        hp_sites_exact_vm_count(hp.jvmti, e, value);
        (*e)->DeleteLocalRef(e, value);
    }
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

bool hp_sites_exact_jni_wrap(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jclass string = (*jni)->FindClass(jni, "java/lang/String");
    f_string_value = string ? (*jni)->GetFieldID(jni, string, "value", "[B") : NULL;
    if (string) (*jni)->DeleteLocalRef(jni, string);
    (*jni)->ExceptionClear(jni);
    jniNativeInterface *table = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetJNIFunctionTable(jvmti, &table), "GetJNIFunctionTable"))
        return false;
    original = *table;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
    wrapped = original;
    wrapped.AllocObject = alloc_object;
    wrapped.NewObject = new_object;
    wrapped.NewObjectV = new_object_v;
    wrapped.NewObjectA = new_object_a;
    wrapped.NewString = new_string;
    wrapped.NewStringUTF = new_string_utf;
    wrapped.NewObjectArray = new_object_array;
    wrapped.NewBooleanArray = NewBooleanArray_w;
    wrapped.NewByteArray = NewByteArray_w;
    wrapped.NewCharArray = NewCharArray_w;
    wrapped.NewShortArray = NewShortArray_w;
    wrapped.NewIntArray = NewIntArray_w;
    wrapped.NewLongArray = NewLongArray_w;
    wrapped.NewFloatArray = NewFloatArray_w;
    wrapped.NewDoubleArray = NewDoubleArray_w;
    wrapped.ToReflectedMethod = to_reflected_method;
    wrapped.ToReflectedField = to_reflected_field;
    return hp_jvmti_ok(jvmti, (*jvmti)->SetJNIFunctionTable(jvmti, &wrapped),
                       "SetJNIFunctionTable");
}
