/* Allocations the JVM makes itself (JVM TI VMObjectAlloc): counted at a
 * heap=sites site of their own, unless they come from a native whose call
 * site was hooked, which counts the object in Java when the call returns. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/bsite.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/tables/class.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <pthread.h>

static atomic_bool recording;
/* Natives that post VMObjectAlloc when not compiled, and whose hooked call
 * sites count the result instead. */
static jmethodID m_clone, m_new_array, m_alloc_instance;
/* Frames between Array.newArray and the hooked call that counts its array:
 * Array.newInstance, and the copyOf methods that call it (not rewritten). */
static jmethodID m_new_instance, m_copy_of, m_copy_of_range;
/* Thread.hprofSites and HprofSites.vmMarked (start-up build only). */
static jfieldID f_thread_sites, f_vm_marked;

/* The constant an injected push at code[at..] gives, -1 if none. */
static int32_t pushed(const unsigned char *code, jint len, jint at, jint *next)
{
    if (at >= len) return -1;
    unsigned op = code[at];
    if (op >= 0x02 && op <= 0x08) return *next = at + 1, (int32_t)op - 3;
    if (op == 0x10 && at + 1 < len) return *next = at + 2, (int8_t)code[at + 1];
    if (op == 0x11 && at + 2 < len)
        return *next = at + 3, (int16_t)(code[at + 1] << 8 | code[at + 2]);
    return -1;
}

/* Past the caller window an injected hook call may get (bci alloc_local):
 * lconst_0, lload_<n>, lload n or wide lload n. */
static jint past_window(const unsigned char *code, jint len, jint at)
{
    if (at >= len) return at;
    if (code[at] == 0x09 || (code[at] >= 0x1e && code[at] <= 0x21)) return at + 1;
    if (code[at] == 0x16) return at + 2;
    if (code[at] == 0xc4 && at + 1 < len && code[at + 1] == 0x16) return at + 4;
    return at;
}

/* Whether the call at `at` in `code` was hooked: the rewritten code has
 * `dup; push site; [window;] invokestatic` right after the invoke, the site
 * a DYN one. Sites pushed by ldc are taken as hooked. */
static bool hooked_call(const unsigned char *code, jint len, jint at)
{
    if (at < 0 || at >= len || code[at] < 0xb6 || code[at] > 0xb9) return false;
    at += code[at] == 0xb9 ? 5 : 3;
    if (at >= len || code[at] != 0x59) return false;
    jint next = 0;
    int32_t site = pushed(code, len, at + 1, &next);
    if (site >= 0) {
        next = past_window(code, len, next);
        return next < len && code[next] == 0xb8 && (site & HP_BSITE_KIND_MASK) == HP_BSITE_DYN &&
               hp_bsite_get(site);
    }
    if (at + 1 < len && (code[at + 1] == 0x12 || code[at + 1] == 0x13)) {
        next = past_window(code, len, at + 1 + (code[at + 1] == 0x12 ? 2 : 3));
        return next < len && code[next] == 0xb8;
    }
    return false;
}

/* (calling method, location) -> hooked_call(), so that GetBytecodes, which
 * copies the whole method, runs once per call site: method handles call
 * Unsafe.allocateInstance for every object they make (JDK 25 javac: the
 * copy was the largest native cost). The agent rewrites a class only at
 * load, so a method's bytecode stays as it was (another agent retransforming
 * it would leave this stale); a full table just stops remembering. */
#define HOOK_MEMO 4096
static struct {
    jmethodID method;
    jlocation at;
    bool hooked;
} hook_memo[HOOK_MEMO];
static pthread_mutex_t hook_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool memo_slot(jmethodID m, jlocation at, uint32_t *slot)
{
    uint64_t h =
        ((uint64_t)(uintptr_t)m ^ (uint64_t)at * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    for (uint32_t i = 0, p = (uint32_t)(h >> 40) % HOOK_MEMO; i < 16;
         i++, p = (p + 1) % HOOK_MEMO) {
        *slot = p;
        if (hook_memo[p].method == NULL) return false;
        if (hook_memo[p].method == m && hook_memo[p].at == at) return true;
    }
    *slot = HOOK_MEMO;
    return false;
}

/* Whether this VMObjectAlloc (frames f[0..n-1], f[0] the allocating native)
 * comes from a native whose call site was hooked, directly or through
 * Array.newInstance (the hook counts the object when the call returns). */
static bool counted_by_hook(jvmtiEnv *jvmti, const jvmtiFrameInfo *f, jint n)
{
    if (f[0].method != m_clone && f[0].method != m_new_array && f[0].method != m_alloc_instance)
        return false;
    if (f[0].method == m_new_array) {
        jint i = 1;
        while (i < n - 1 && (f[i].method == m_new_instance || f[i].method == m_copy_of ||
                             f[i].method == m_copy_of_range))
            i++;
        if (i == 1) return false; /* newArray is only called by newInstance */
        f += i - 1;
    }
    uint32_t slot;
    pthread_mutex_lock(&hook_memo_lock);
    bool known = memo_slot(f[1].method, f[1].location, &slot);
    bool hooked = known && hook_memo[slot].hooked;
    pthread_mutex_unlock(&hook_memo_lock);
    if (known) return hooked;
    jint len = 0;
    unsigned char *code = NULL;
    if ((*jvmti)->GetBytecodes(jvmti, f[1].method, &len, &code) != JVMTI_ERROR_NONE) return false;
    hooked = hooked_call(code, len, (jint)f[1].location);
    (*jvmti)->Deallocate(jvmti, code);
    pthread_mutex_lock(&hook_memo_lock);
    if (!memo_slot(f[1].method, f[1].location, &slot) && slot < HOOK_MEMO) {
        hook_memo[slot].method = f[1].method;
        hook_memo[slot].at = f[1].location;
        hook_memo[slot].hooked = hooked;
    }
    pthread_mutex_unlock(&hook_memo_lock);
    return hooked;
}

static HP_TLS bool ignoring;

void hp_sites_exact_vm_alloc_ignore(bool on)
{
    ignoring = on;
}

/* Whether a hooked Unsafe.allocateInstance of `klass` is under way on
 * `thread` (HprofSites.vmMark): its hook counts the object once the call
 * returns. Read through two fields, not a stack walk: JDK 25's C2 gives up
 * the call's intrinsic while VMObjectAlloc is on, so every object a method
 * handle constructs posts the event, and even a walk of one frame cost
 * more than the rest of the agent on such code. An object of the class
 * made by its own initializer during the call is no hooked one (the class
 * is not initialized yet): it is told by the walk. */
static bool marked_by_hook(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    if (f_vm_marked == NULL || thread == NULL) return false;
    jobject state = (*jni)->GetObjectField(jni, thread, f_thread_sites);
    jobject marked = state ? (*jni)->GetObjectField(jni, state, f_vm_marked) : NULL;
    bool same = marked != NULL && (*jni)->IsSameObject(jni, marked, klass);
    if (marked) (*jni)->DeleteLocalRef(jni, marked);
    if (state) (*jni)->DeleteLocalRef(jni, state);
    jint status = 0;
    return same && (*jvmti)->GetClassStatus(jvmti, klass, &status) == JVMTI_ERROR_NONE &&
           (status & JVMTI_CLASS_STATUS_INITIALIZED);
}

/* The thread whose allocation is to be counted, or false if none is:
 * before or after the recording, on the agent's threads, while ignoring. */
static bool counting(jvmtiEnv *jvmti, const struct hp_thread **t)
{
    if (!atomic_load_explicit(&recording, memory_order_relaxed) || ignoring) return false;
    *t = hp_thread_get(jvmti, NULL);
    return *t == NULL || !(*t)->agent;
}

static jint trace_depth(void)
{
    jint depth = atomic_load_explicit(&hp.trace_depth, memory_order_relaxed);
    return depth > HP_SITES_EXACT_CAPACITY ? HP_SITES_EXACT_CAPACITY : depth;
}

/* Counts `object` at the site of its class and the frames f[0..n-1]. */
static void count_at(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_thread *t, jobject object,
                     jclass klass, jlong size, const jvmtiFrameInfo *f, jint n)
{
    uint32_t serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
    uint32_t trace = hp_trace_from_frames(jvmti, jni, f, n, hp.opt.thread ? serial : 0);
    uint32_t site = hp_site_intern(hp_class_serial(jvmti, klass), trace);
    uint32_t kid = site ? hp_key_vm(site) : 0;
    struct hp_key *key = hp_key_get(kid);
    if (key == NULL) {
        hp_key_lost();
        return;
    }
    atomic_store(&key->site, site);
    atomic_fetch_add_explicit(&key->objs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&key->bytes, (uint64_t)size, memory_order_relaxed);
    /* Tagged only if it survives a collection, as the tracker's objects. */
    if (hp_sites_exact_survivors_record(jni, object, kid) ||
        (*jvmti)->SetTag(jvmti, object, (jlong)hp_objid_new(kid)) == JVMTI_ERROR_NONE)
        atomic_fetch_add_explicit(&key->tagged, 1, memory_order_relaxed);
}

static void record_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                   jclass klass, jlong size)
{
    const struct hp_thread *t = NULL;
    if (!counting(jvmti, &t) || marked_by_hook(jvmti, jni, thread, klass)) return;
    /* A hooked clone() or Unsafe.allocateInstance is told by two frames, so
     * it is dropped before the walk of the whole trace: JDK 25's reflection
     * makes every object through a hooked allocateInstance, and the deeper
     * walk (scopes of inlined frames decoded) was 40 % of such a program's
     * CPU. One walk of up to four frames serves Array.newArray's check. */
    jvmtiFrameInfo f[HP_SITES_EXACT_CAPACITY];
    jint n = 0;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, 2, f, &n) != JVMTI_ERROR_NONE) n = 0;
    if (n == 2 && (f[0].method == m_clone || f[0].method == m_alloc_instance) &&
        counted_by_hook(jvmti, f, n))
        return;
    jint depth = trace_depth();
    if (n == 2 &&
        (*jvmti)->GetStackTrace(jvmti, NULL, 0, depth > 4 ? depth : 4, f, &n) != JVMTI_ERROR_NONE)
        n = 0;
    if (n >= 2 && f[0].method == m_new_array && counted_by_hook(jvmti, f, n)) return;
    count_at(jvmti, jni, t, object, klass, size, f, n < depth ? n : depth);
}

void hp_sites_exact_vm_count(jvmtiEnv *jvmti, JNIEnv *jni, const jobject *objects, int n_objects)
{
    const struct hp_thread *t = NULL;
    if (!counting(jvmti, &t)) return;
    /* No Java frame: an agent's or the JVM's own code (a VM init callback,
     * an agent thread), not a program's native. */
    jvmtiFrameInfo f[HP_SITES_EXACT_CAPACITY];
    jint n = 0;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, trace_depth(), f, &n) != JVMTI_ERROR_NONE || n == 0)
        return;
    for (int i = 0; i < n_objects; i++) {
        jlong size = 0;
        jclass klass = objects[i] ? (*jni)->GetObjectClass(jni, objects[i]) : NULL;
        if (klass && (*jvmti)->GetObjectSize(jvmti, objects[i], &size) == JVMTI_ERROR_NONE)
            count_at(jvmti, jni, t, objects[i], klass, size, f, n);
        if (klass) (*jni)->DeleteLocalRef(jni, klass);
    }
}

bool hp_sites_exact_vm_recording(void)
{
    return atomic_load_explicit(&recording, memory_order_relaxed) && !ignoring;
}

void JNICALL hp_sites_exact_on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                               jobject object, jclass klass, jlong size)
{
    hp_in_agent_enter();
    record_vm_object_alloc(jvmti, jni, thread, object, klass, size);
    hp_in_agent_leave(jvmti, jni);
}

static jmethodID method_of(JNIEnv *jni, const char *cls, const char *name, const char *desc,
                           bool is_static)
{
    jclass c = (*jni)->FindClass(jni, cls);
    jmethodID m = c == NULL   ? NULL
                  : is_static ? (*jni)->GetStaticMethodID(jni, c, name, desc)
                              : (*jni)->GetMethodID(jni, c, name, desc);
    if (c) (*jni)->DeleteLocalRef(jni, c);
    (*jni)->ExceptionClear(jni);
    return m;
}

/* The fields marked_by_hook reads; none attached (no call is marked). */
static void find_mark(JNIEnv *jni)
{
    f_thread_sites = f_vm_marked = NULL;
    if (hp.attached) return;
    jclass sites = hp_instr_class(HP_SITES_CLASS);
    jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
    if (sites && thread)
        f_thread_sites = (*jni)->GetFieldID(jni, thread, "hprofSites", "L" HP_SITES_CLASS ";");
    if (f_thread_sites)
        f_vm_marked = (*jni)->GetFieldID(jni, sites, "vmMarked", "Ljava/lang/Object;");
    if (thread) (*jni)->DeleteLocalRef(jni, thread);
    (*jni)->ExceptionClear(jni);
}

bool hp_sites_exact_find_natives(JNIEnv *jni)
{
    m_clone = method_of(jni, "java/lang/Object", "clone", "()Ljava/lang/Object;", false);
    m_new_array = method_of(jni, "java/lang/reflect/Array", "newArray",
                            "(Ljava/lang/Class;I)Ljava/lang/Object;", true);
    m_alloc_instance = method_of(jni, "jdk/internal/misc/Unsafe", "allocateInstance",
                                 "(Ljava/lang/Class;)Ljava/lang/Object;", false);
    m_new_instance = method_of(jni, "java/lang/reflect/Array", "newInstance",
                               "(Ljava/lang/Class;I)Ljava/lang/Object;", true);
    m_copy_of = method_of(jni, "java/util/Arrays", "copyOf",
                          "([Ljava/lang/Object;ILjava/lang/Class;)[Ljava/lang/Object;", true);
    m_copy_of_range =
        method_of(jni, "java/util/Arrays", "copyOfRange",
                  "([Ljava/lang/Object;IILjava/lang/Class;)[Ljava/lang/Object;", true);
    find_mark(jni);
    return m_clone && m_new_array && m_alloc_instance && m_new_instance && m_copy_of &&
           m_copy_of_range;
}

void hp_sites_exact_vm_alloc_record(jvmtiEnv *jvmti, bool on, bool event)
{
    atomic_store(&recording, on);
    if (on && !event) return;
    hp_jvmti_ok(jvmti,
                (*jvmti)->SetEventNotificationMode(jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                                   JVMTI_EVENT_VM_OBJECT_ALLOC, NULL),
                "SetEventNotificationMode");
}
