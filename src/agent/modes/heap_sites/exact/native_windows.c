/* VMObjectAlloc from JDK 22 on: on only while a thread runs one of the
 * natives in which the JVM allocates objects itself (reflection data, class
 * names, stack traces), not for the whole run. While the event is on for
 * any thread, C2 compiles Unsafe.allocateInstance as a call of the native
 * (JDK-8307462), which posts the event: every object a method handle
 * constructs, each capturing lambda among them, then costs a native call,
 * the event and its callback, and is never scalar-replaced (javac 25: 8.4 M
 * such objects, exact heap=sites 27.9 s of CPU against 22.4 s without the
 * event). Objects natives make through JNI are counted by jni_alloc.c.
 *
 * The natives are wrapped where the JVM binds them (NativeMethodBind): a
 * wrapper turns the event on for its thread around the original. Natives
 * bound in the primordial phase, before JVM TI can name a method, are
 * noted and bound again to their wrapper at VM init. A native not listed
 * here that allocates inside the JVM is not counted on these JDKs. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* The calling thread's open windows (wrapped natives nest: a class
 * initializer may run in one), and whether the outermost one turned the
 * event on for the thread alone or for all (a virtual thread, which this
 * environment cannot name, has no thread-level events). */
static HP_TLS unsigned depth;
static HP_TLS jthread window_thread;
static atomic_uint global_windows;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_global(jvmtiEnv *jvmti, bool open)
{
    pthread_mutex_lock(&global_lock);
    unsigned n = atomic_load(&global_windows);
    atomic_store(&global_windows, open ? n + 1 : n - 1);
    if (n == (open ? 0u : 1u))
        hp_jvmti_ok(jvmti,
                    (*jvmti)->SetEventNotificationMode(jvmti, open ? JVMTI_ENABLE : JVMTI_DISABLE,
                                                       JVMTI_EVENT_VM_OBJECT_ALLOC, NULL),
                    "SetEventNotificationMode");
    pthread_mutex_unlock(&global_lock);
}

void hp_sites_exact_window_open(JNIEnv *jni)
{
    if (depth++ > 0 || !hp_sites_exact_vm_recording()) return;
    jvmtiEnv *jvmti = hp.jvmti;
    jthread t = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &t) == JVMTI_ERROR_NONE &&
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, t) ==
            JVMTI_ERROR_NONE) {
        window_thread = t;
        return;
    }
    if (t) (*jni)->DeleteLocalRef(jni, t);
    window_thread = NULL;
    set_global(jvmti, true);
    depth |= 1u << 31; /* the outermost window is a global one */
}

void hp_sites_exact_window_close(JNIEnv *jni)
{
    if (--depth & ~(1u << 31)) return;
    jvmtiEnv *jvmti = hp.jvmti;
    if (depth) {
        depth = 0;
        set_global(jvmti, false);
    } else if (window_thread) {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_VM_OBJECT_ALLOC,
                                           window_thread);
        (*jni)->DeleteLocalRef(jni, window_thread);
        window_thread = NULL;
    }
}

bool hp_sites_exact_in_window(void)
{
    return depth > 0 || atomic_load_explicit(&global_windows, memory_order_relaxed) > 0;
}

/* Wrappers by the native's parameters after the receiver or class: none
 * (O), a boolean (OZ), one reference (OL), a reference and an int (OLI),
 * two references (OLL). */
#define NATIVE(i) atomic_load_explicit(&wrapped[i].original, memory_order_acquire)
/* `params` and `args` are parenthesised lists: they cannot be wrapped. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define RETURNING(i, params, args)                                                                 \
    static jobject JNICALL wrap_##i params                                                         \
    {                                                                                              \
        hp_sites_exact_window_open(e);                                                             \
        jobject r = ((jobject(JNICALL *) params)NATIVE(i))args;                                    \
        hp_sites_exact_window_close(e);                                                            \
        return r;                                                                                  \
    }
/* NOLINTEND(bugprone-macro-parentheses) */
#define SHAPE_O(i) RETURNING(i, (JNIEnv * e, jobject a), (e, a))
#define SHAPE_OZ(i) RETURNING(i, (JNIEnv * e, jobject a, jboolean b), (e, a, b))
#define SHAPE_OL(i) RETURNING(i, (JNIEnv * e, jobject a, jobject b), (e, a, b))
#define SHAPE_OLI(i) RETURNING(i, (JNIEnv * e, jobject a, jobject b, jint c), (e, a, b, c))
#define SHAPE_OLL(i) RETURNING(i, (JNIEnv * e, jobject a, jobject b, jobject c), (e, a, b, c))

/* The natives (JDK 22-25) whose JVM side allocates objects without JNI,
 * each called about once per class or per run (a window's two JVM TI calls
 * take time in proportion to the JVM's threads): id, class, name,
 * descriptor, shape. Not listed: StackTraceElement's, which a program may
 * call at every exception and which allocate only the first time a name
 * is interned. */
#define CP "Ljava/lang/Object;I)"
// clang-format off
#define WRAPPED(X) \
    X(class_name, "java/lang/Class", "initClassName", "()Ljava/lang/String;", O) \
    X(methods, "java/lang/Class", "getDeclaredMethods0", "(Z)[Ljava/lang/reflect/Method;", OZ) \
    X(fields, "java/lang/Class", "getDeclaredFields0", "(Z)[Ljava/lang/reflect/Field;", OZ) \
    X(constructors, "java/lang/Class", "getDeclaredConstructors0", \
      "(Z)[Ljava/lang/reflect/Constructor;", OZ) \
    X(classes, "java/lang/Class", "getDeclaredClasses0", "()[Ljava/lang/Class;", O) \
    X(interfaces, "java/lang/Class", "getInterfaces0", "()[Ljava/lang/Class;", O) \
    X(enclosing, "java/lang/Class", "getEnclosingMethod0", "()[Ljava/lang/Object;", O) \
    X(generic, "java/lang/Class", "getGenericSignature0", "()Ljava/lang/String;", O) \
    X(annotations, "java/lang/Class", "getRawAnnotations", "()[B", O) \
    X(type_annotations, "java/lang/Class", "getRawTypeAnnotations", "()[B", O) \
    X(constant_pool, "java/lang/Class", "getConstantPool", "()Ljdk/internal/reflect/ConstantPool;", O) \
    X(records, "java/lang/Class", "getRecordComponents0", \
      "()[Ljava/lang/reflect/RecordComponent;", O) \
    X(nest, "java/lang/Class", "getNestMembers0", "()[Ljava/lang/Class;", O) \
    X(permitted, "java/lang/Class", "getPermittedSubclasses0", "()[Ljava/lang/Class;", O) \
    X(simple_name, "java/lang/Class", "getSimpleBinaryName0", "()Ljava/lang/String;", O) \
    X(signers, "java/lang/Class", "getSigners", "()[Ljava/lang/Object;", O) \
    X(parameters, "java/lang/reflect/Executable", "getParameters0", \
      "()[Ljava/lang/reflect/Parameter;", O) \
    X(exec_type_annotations, "java/lang/reflect/Executable", "getTypeAnnotationBytes0", "()[B", O) \
    X(field_type_annotations, "java/lang/reflect/Field", "getTypeAnnotationBytes0", "()[B", O) \
    X(cp_class, "jdk/internal/reflect/ConstantPool", "getClassAt0", "(" CP "Ljava/lang/Class;", OLI) \
    X(cp_class_loaded, "jdk/internal/reflect/ConstantPool", "getClassAtIfLoaded0", \
      "(" CP "Ljava/lang/Class;", OLI) \
    X(cp_method, "jdk/internal/reflect/ConstantPool", "getMethodAt0", \
      "(" CP "Ljava/lang/reflect/Member;", OLI) \
    X(cp_method_loaded, "jdk/internal/reflect/ConstantPool", "getMethodAtIfLoaded0", \
      "(" CP "Ljava/lang/reflect/Member;", OLI) \
    X(cp_field, "jdk/internal/reflect/ConstantPool", "getFieldAt0", \
      "(" CP "Ljava/lang/reflect/Field;", OLI) \
    X(cp_field_loaded, "jdk/internal/reflect/ConstantPool", "getFieldAtIfLoaded0", \
      "(" CP "Ljava/lang/reflect/Field;", OLI) \
    X(cp_member_ref, "jdk/internal/reflect/ConstantPool", "getMemberRefInfoAt0", \
      "(" CP "[Ljava/lang/String;", OLI) \
    X(cp_name_type, "jdk/internal/reflect/ConstantPool", "getNameAndTypeRefInfoAt0", \
      "(" CP "[Ljava/lang/String;", OLI) \
    X(cp_string, "jdk/internal/reflect/ConstantPool", "getStringAt0", "(" CP "Ljava/lang/String;", OLI) \
    X(cp_utf8, "jdk/internal/reflect/ConstantPool", "getUTF8At0", "(" CP "Ljava/lang/String;", OLI) \
    X(packages, "jdk/internal/loader/BootLoader", "getSystemPackageNames", "()[Ljava/lang/String;", O) \
    X(package_location, "jdk/internal/loader/BootLoader", "getSystemPackageLocation", \
      "(Ljava/lang/String;)Ljava/lang/String;", OL) \
    X(threads, "java/lang/Thread", "getThreads", "()[Ljava/lang/Thread;", O) \
    X(dump_threads, "java/lang/Thread", "dumpThreads", \
      "([Ljava/lang/Thread;)[[Ljava/lang/StackTraceElement;", OL) \
    X(stack_trace, "java/lang/Thread", "getStackTrace0", "()Ljava/lang/Object;", O) \
    X(vm_arguments, "jdk/internal/misc/VM", "getRuntimeArguments", "()[Ljava/lang/String;", O) \
    X(vm_properties, "jdk/internal/util/SystemProps$Raw", "vmProperties", "()[Ljava/lang/String;", O) \
    X(directives, "java/lang/ClassLoader", "retrieveDirectives", \
      "()Ljava/lang/AssertionStatusDirectives;", O) \
    X(member_info, "java/lang/invoke/MethodHandleNatives", "getMemberVMInfo", \
      "(Ljava/lang/invoke/MemberName;)Ljava/lang/Object;", OL) \
    X(multi_array, "java/lang/reflect/Array", "multiNewArray", \
      "(Ljava/lang/Class;[I)Ljava/lang/Object;", OLL)
// clang-format on

#define ID(id, cls, name, desc, shape) W_##id,
enum { WRAPPED(ID) N_WRAPPED };
#undef ID

static struct {
    const char *cls, *name, *desc;
    void *wrapper;
    _Atomic(void *) original;
} wrapped[N_WRAPPED];

#define DEFINE(id, cls, name, desc, shape) SHAPE_##shape(W_##id)
WRAPPED(DEFINE)
#undef DEFINE

static void list_wrapped(void)
{
#define ENTRY(id, c, n, d, shape)                                                                  \
    wrapped[W_##id].cls = (c), wrapped[W_##id].name = (n), wrapped[W_##id].desc = (d),             \
    wrapped[W_##id].wrapper = (void *)wrap_W_##id;
    WRAPPED(ENTRY)
#undef ENTRY
}

/* Binds seen in the primordial phase: method and address. */
#define EARLY_BINDS 4096
static struct {
    jmethodID method;
    void *address;
} early[EARLY_BINDS];
static atomic_uint n_early;

/* The listed native `method` is, or -1. */
static int listed(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method)
{
    char *name = NULL, *desc = NULL, *sig = NULL;
    jclass k = NULL;
    int found = -1;
    if ((*jvmti)->GetMethodName(jvmti, method, &name, &desc, NULL) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetMethodDeclaringClass(jvmti, method, &k) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
        size_t len = strlen(sig);
        for (int i = 0; i < N_WRAPPED && found < 0; i++)
            if (strcmp(wrapped[i].name, name) == 0 && strcmp(wrapped[i].desc, desc) == 0 &&
                len == strlen(wrapped[i].cls) + 2 && strncmp(sig + 1, wrapped[i].cls, len - 2) == 0)
                found = i;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)desc);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (k && jni) (*jni)->DeleteLocalRef(jni, k);
    return found;
}

static void JNICALL on_bind(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method,
                            void *address, void **new_address_ptr)
{
    (void)thread;
    jvmtiPhase phase = JVMTI_PHASE_DEAD;
    (*jvmti)->GetPhase(jvmti, &phase);
    if (phase == JVMTI_PHASE_PRIMORDIAL) {
        unsigned i = atomic_fetch_add(&n_early, 1);
        if (i < EARLY_BINDS) early[i].method = method, early[i].address = address;
        return;
    }
    int i = listed(jvmti, jni, method);
    if (i < 0 || address == wrapped[i].wrapper) return;
    atomic_store_explicit(&wrapped[i].original, address, memory_order_release);
    *new_address_ptr = wrapped[i].wrapper;
}

/* Binds a native that was bound in the primordial phase to its wrapper. */
static void rebind(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, void *address)
{
    int i = listed(jvmti, jni, method);
    jclass k = NULL;
    if (i < 0 || (*jvmti)->GetMethodDeclaringClass(jvmti, method, &k) != JVMTI_ERROR_NONE) return;
    atomic_store_explicit(&wrapped[i].original, address, memory_order_release);
    JNINativeMethod m = {(char *)wrapped[i].name, (char *)wrapped[i].desc, wrapped[i].wrapper};
    if ((*jni)->RegisterNatives(jni, k, &m, 1) != 0) {
        (*jni)->ExceptionClear(jni);
        hp_error("heap=sites: cannot wrap %s.%s; objects it makes are not counted", wrapped[i].cls,
                 wrapped[i].name);
    }
    (*jni)->DeleteLocalRef(jni, k);
}

bool hp_sites_exact_windows_wanted(struct hp_setup *s)
{
    jint version = 0;
    jvmtiCapabilities bind = {.can_generate_native_method_bind_events = 1};
    if (hp.attached || !s->potential.can_generate_native_method_bind_events ||
        (*hp.jvmti)->GetVersionNumber(hp.jvmti, &version) != JVMTI_ERROR_NONE ||
        (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR < 22)
        return false;
    /* Now, to see the binds of the primordial phase. */
    if (!hp_jvmti_ok(hp.jvmti, (*hp.jvmti)->AddCapabilities(hp.jvmti, &bind), "AddCapabilities") ||
        !hp_jvmti_ok(hp.jvmti,
                     (*hp.jvmti)->SetEventNotificationMode(hp.jvmti, JVMTI_ENABLE,
                                                           JVMTI_EVENT_NATIVE_METHOD_BIND, NULL),
                     "SetEventNotificationMode"))
        return false;
    list_wrapped();
    s->events->NativeMethodBind = on_bind;
    return true;
}

void hp_sites_exact_windows_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    unsigned n = atomic_load(&n_early);
    if (n > EARLY_BINDS) {
        hp_error("heap=sites: more than %d natives bound before VM start; some objects the JVM "
                 "makes are not counted",
                 EARLY_BINDS);
        n = EARLY_BINDS;
    }
    for (unsigned i = 0; i < n; i++)
        rebind(jvmti, jni, early[i].method, early[i].address);
}
