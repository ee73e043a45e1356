#include "agent/modes/heap_sites/exact.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/core/in_agent.h"
#include "agent/instrument/frames.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/bsite.h"
#include "agent/modes/heap_sites/key.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/sites_class.h"
#include "agent/modes/heap_sites/weight.h"
#include "agent/tables/class.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Per slot, the first EXACT_TAGS objects are tagged, then one in
 * SAMPLE_EVERY (a power of two). */
#define EXACT_TAGS 512
#define SAMPLE_EVERY 1024
/* A key's int after the site when the allocating method is the site's own
 * (window keys, HprofSites.TOP). */
#define KEY_TOP (-2)

static atomic_bool recording, key_lost;
static jclass tracker;
static jmethodID m_retire, m_states, m_give_stack;
/* The tracker's methods are looked up and shadow stacks are wanted. */
static atomic_bool stacks;
static jfieldID f_thread, f_n, f_keys, f_cnt, f_bytes, f_kid;
/* Natives that post VMObjectAlloc when not compiled, and whose hooked call
 * sites count the result instead. */
static jmethodID m_clone, m_new_array, m_alloc_instance;
/* Frames between Array.newArray and the hooked call that counts its array:
 * Array.newInstance, and the copyOf methods that call it (not rewritten). */
static jmethodID m_new_instance, m_copy_of, m_copy_of_range;
static int width;  /* ints per tracker key */
static jint align; /* object alignment in bytes */
/* Array layout per kind (Z B C S I F J D, references): size(n) =
 * align(base + n << shift), learned from the sizes of a few arrays. */
static jint base[9], shift[9];
static pthread_mutex_t fold_lock = PTHREAD_MUTEX_INITIALIZER; /* ended-thread folds vs dumps */

bool hp_sites_exact_selected(void)
{
    /* heap=all: the dump needs every object's trace in its tag; cpu=times
     * owns the entry/exit hooks; sampling needs SampledObjectAlloc. */
    return hp.opt.alloc_interval == 0 && !hp.opt.heap_dump && !hp.opt.cpu_times &&
           hp.opt.depth <= HP_SITES_EXACT_MAX_DEPTH;
}

static void lost_key(void)
{
    if (!atomic_exchange(&key_lost, true))
        hp_error("heap=sites: allocation key table full or out of memory; some objects are not "
                 "tagged or counted from now on");
}

static uint32_t thread_serial_now(jvmtiEnv *jvmti)
{
    if (!hp.opt.thread) return 0;
    const struct hp_thread *t = hp_thread_get(jvmti, NULL);
    return t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
}

/* ---- HprofSites natives (see instrument.h for why they are exported) ---- */

/* Learns the class of a site's objects from its first tagged one; false if
 * `o` is not of the site's class (an instance paired with the wrong new). */
static bool learn_class(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_bsite *b, jobject o)
{
    if (atomic_load_explicit(&b->class_serial, memory_order_acquire)) return true;
    jclass c = (*jni)->GetObjectClass(jni, o);
    char *sig = NULL;
    if (c == NULL || (*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) != JVMTI_ERROR_NONE)
        return false;
    bool same = strcmp(sig, b->sig) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (!same) return false;
    jlong size = 0;
    (*jvmti)->GetObjectSize(jvmti, o, &size);
    atomic_store(&b->instance_size, (uint64_t)size);
    atomic_store_explicit(&b->class_serial, hp_class_serial(jvmti, c), memory_order_release);
    (*jni)->DeleteLocalRef(jni, c);
    return true;
}

static jint tag(jvmtiEnv *jvmti, JNIEnv *jni, jobject o, jintArray keys, jint at, jint kid,
                jboolean sampled)
{
    if (kid <= 0) {
        jint buf[64];
        (*jni)->GetIntArrayRegion(jni, keys, at, width, buf);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
        struct hp_bsite *b = hp_bsite_get(buf[0]);
        if (b == NULL) return -1;
        if (!learn_class(jvmti, jni, b, o)) return 0;
        kid = (jint)hp_key_intern(thread_serial_now(jvmti), buf);
        if (kid == 0) {
            lost_key();
            return -1;
        }
    }
    struct hp_key *key = hp_key_get((uint32_t)kid);
    if (key == NULL) return -1;
    hp_objid_t id = hp_objid_new((uint32_t)kid | (sampled ? HP_KEY_SAMPLED : 0));
    if ((*jvmti)->SetTag(jvmti, o, (jlong)id) != JVMTI_ERROR_NONE) return -1;
    atomic_fetch_add_explicit(&key->tagged, 1, memory_order_relaxed);
    if (sampled) atomic_fetch_add_explicit(&key->sampled, 1, memory_order_relaxed);
    return kid;
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_tag(JNIEnv *jni, jclass k, jobject o,
                                                     jintArray keys, jint at, jint kid,
                                                     jboolean sampled)
{
    (void)k;
    if (o == NULL) return -1; /* engage() links the native this way */
    hp_in_agent_enter();
    jint r = tag(hp.jvmti, jni, o, keys, at, kid, sampled);
    hp_in_agent_leave(hp.jvmti, jni);
    return r;
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_derive(JNIEnv *jni, jclass k, jint site, jclass c)
{
    (void)jni, (void)k;
    char *sig = NULL;
    if (c == NULL) return -1; /* engage() links the native this way */
    if ((*hp.jvmti)->GetClassSignature(hp.jvmti, c, &sig, NULL) != JVMTI_ERROR_NONE) return -1;
    int d = hp_bsite_derive(site, sig);
    (*hp.jvmti)->Deallocate(hp.jvmti, (unsigned char *)sig);
    return d;
}

JNIEXPORT void JNICALL Java_java_lang_HprofSites_backoff(JNIEnv *jni, jclass k, jint round)
{
    (void)k;
    hp_in_agent_enter();
    hp_instr_backoff(round);
    hp_in_agent_leave(hp.jvmti, jni);
}

JNIEXPORT void JNICALL Java_java_lang_HprofSites_own(JNIEnv *jni, jclass k, jobject o)
{
    (void)k;
    hp_in_agent_enter();
    /* Site bits 0: tagged, so never counted as an untagged live object. */
    (*hp.jvmti)->SetTag(hp.jvmti, o, (jlong)hp_objid_new(0));
    hp_in_agent_leave(hp.jvmti, jni);
}

/* Callers from the shadow stack (deeper than the window holds). */
static bool on_stack(void)
{
    return hp.opt.depth > HP_SITES_WINDOW_DEPTH;
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_config(JNIEnv *jni, jclass k, jint what)
{
    (void)jni, (void)k;
    switch (what) {
    case 0:
        return hp.opt.depth;
    case 1:
        return EXACT_TAGS;
    case 2:
        return SAMPLE_EVERY;
    case 3:
        return align;
    case 4:
        return on_stack();
    default:
        return what >= 10 && what < 19   ? base[what - 10]
               : what >= 20 && what < 29 ? shift[what - 20]
                                         : 0;
    }
}

/* ---- JVM-made allocations ---- */

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

static void record_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                   jclass klass, jlong size)
{
    (void)thread;
    if (!atomic_load_explicit(&recording, memory_order_relaxed)) return;
    const struct hp_thread *t = hp_thread_get(jvmti, NULL);
    if (t != NULL && t->agent) return;
    /* One walk serves the hook check (up to four frames) and the trace. */
    jint depth = atomic_load_explicit(&hp.trace_depth, memory_order_relaxed);
    if (depth > HP_SITES_EXACT_MAX_DEPTH) depth = HP_SITES_EXACT_MAX_DEPTH;
    jvmtiFrameInfo f[HP_SITES_EXACT_MAX_DEPTH];
    jint n = 0;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, depth > 4 ? depth : 4, f, &n) != JVMTI_ERROR_NONE)
        n = 0;
    if (n >= 2 && counted_by_hook(jvmti, f, n)) return;
    uint32_t serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
    uint32_t trace =
        hp_trace_from_frames(jvmti, jni, f, n < depth ? n : depth, hp.opt.thread ? serial : 0);
    uint32_t site = hp_site_intern(hp_class_serial(jvmti, klass), trace);
    uint32_t kid = site ? hp_key_vm(site) : 0;
    struct hp_key *key = hp_key_get(kid);
    if (key == NULL) {
        lost_key();
        return;
    }
    atomic_store(&key->site, site);
    atomic_fetch_add_explicit(&key->objs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&key->bytes, (uint64_t)size, memory_order_relaxed);
    if ((*jvmti)->SetTag(jvmti, object, (jlong)hp_objid_new(kid)) == JVMTI_ERROR_NONE)
        atomic_fetch_add_explicit(&key->tagged, 1, memory_order_relaxed);
}

static void JNICALL on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                       jclass klass, jlong size)
{
    hp_in_agent_enter();
    record_vm_object_alloc(jvmti, jni, thread, object, klass, size);
    hp_in_agent_leave(jvmti, jni);
}

/* ---- set up ---- */

/* Per thread: the tracker state, the caller window, the shadow stack and
 * its height. */
static const struct bci_field thread_fields[] = {{"hprofSites", "Ljava/lang/HprofSites;"},
                                                 {"hprofWin", "J"},
                                                 {"hprofStk", "[I"},
                                                 {"hprofSp", "I"},
                                                 {NULL, NULL}};

bool hp_sites_exact_on_load(struct hp_setup *s)
{
    if (!s->potential.can_generate_vm_object_alloc_events || !s->potential.can_tag_objects ||
        !s->potential.can_get_bytecodes) {
        hp_error("heap=sites needs JVM TI VMObjectAlloc, object tags and GetBytecodes");
        return false;
    }
    s->wanted->can_generate_vm_object_alloc_events = 1;
    s->wanted->can_tag_objects = 1;
    s->wanted->can_get_bytecodes = 1;
    s->events->VMObjectAlloc = on_vm_object_alloc;
    width = hp.opt.depth > 1 ? 1 + hp.opt.depth : 1;
    hp_key_table_init(width);
    hp_site_table_init();
    struct hp_instr_client c = {
        .new_obj_name = "newObj",
        .new_obj_desc = "(I)V",
        .new_array_name = "newArray",
        .new_array_desc = "(Ljava/lang/Object;I)V",
        .object_init_name = "objInit",
        .object_init_desc = "(Ljava/lang/Object;)V",
        .invoke_name = "invoked",
        .invoke_desc = "(Ljava/lang/Object;I)V",
        .site_number = hp_bsite_number,
        .invoke_number = hp_bsite_invoke,
        /* Each thread's tracker state, caller window and shadow stack, one
         * load away. */
        .field_class = "java/lang/Thread",
        .fields = thread_fields,
        .class_name = HP_SITES_CLASS,
        .class_bytes = hp_sites_class,
        .class_len = hp_sites_class_len,
        .frames = true,
    };
    if (hp.opt.depth > 1 && !on_stack()) {
        c.entry_name = "enterWin";
        c.entry_desc = "(I)J";
        c.exit_name = "exitWin";
        c.exit_desc = "(J)V";
        c.resume_name = "resumeWin";
        c.resume_desc = "(JI)V";
        c.call_name = "callWin";
        c.call_desc = "(JI)V";
        c.entry_local = BCI_LOCAL_LONG;
        c.alloc_local = true;
        c.new_obj_desc = "(IJ)V";
        c.new_array_desc = "(Ljava/lang/Object;IJ)V";
        c.invoke_desc = "(Ljava/lang/Object;IJ)V";
        c.entry_exit_skip_leaves = true;
    } else if (hp.opt.depth > 1) {
        c.entry_name = "enter";
        c.entry_desc = "(I)I";
        c.exit_name = "exit";
        c.exit_desc = "(I)V";
        c.resume_name = "resume";
        c.resume_desc = "(I)V";
        c.call_name = "call";
        c.call_desc = "(II)V";
        c.entry_local = BCI_LOCAL_INT;
        c.entry_exit_skip_leaves = true;
    }
    return hp_instr_add(s, &c);
}

static jarray new_array(JNIEnv *jni, int kind, jsize n)
{
    switch (kind) {
    case 0:
        return (*jni)->NewBooleanArray(jni, n);
    case 1:
        return (*jni)->NewByteArray(jni, n);
    case 2:
        return (*jni)->NewCharArray(jni, n);
    case 3:
        return (*jni)->NewShortArray(jni, n);
    case 4:
        return (*jni)->NewIntArray(jni, n);
    case 5:
        return (*jni)->NewFloatArray(jni, n);
    case 6:
        return (*jni)->NewLongArray(jni, n);
    case 7:
        return (*jni)->NewDoubleArray(jni, n);
    default: {
        jclass object = (*jni)->FindClass(jni, "java/lang/Object");
        jarray a = object ? (*jni)->NewObjectArray(jni, n, object, NULL) : NULL;
        if (object) (*jni)->DeleteLocalRef(jni, object);
        return a;
    }
    }
}

#define PROBES 40

static bool learn_layout(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jlong size[9][PROBES];
    for (int k = 0; k < 9; k++)
        for (jsize n = 0; n < PROBES; n++) {
            jarray a = new_array(jni, k, n);
            if (a == NULL || (*jvmti)->GetObjectSize(jvmti, a, &size[k][n]) != JVMTI_ERROR_NONE) {
                (*jni)->ExceptionClear(jni);
                return false;
            }
            (*jni)->DeleteLocalRef(jni, a);
        }
    /* Alignment: the smallest step between byte array sizes. */
    align = 0;
    for (int n = 1; n < PROBES; n++) {
        jint step = (jint)(size[1][n] - size[1][n - 1]);
        if (step > 0 && (align == 0 || step < align)) align = step;
    }
    if (align <= 0 || (align & (align - 1))) return false;
    for (int k = 0; k < 9; k++) {
        bool found = false;
        for (jint sh = 0; sh <= 3 && !found; sh++)
            for (jint b = 0; b < 64 && !found; b++) {
                found = true;
                for (int n = 0; n < PROBES && found; n++)
                    found =
                        ((b + ((jlong)n << sh) + align - 1) & ~(jlong)(align - 1)) == size[k][n];
                if (found) {
                    base[k] = b;
                    shift[k] = sh;
                }
            }
        if (!found) return false;
    }
    return true;
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

static bool find_natives(JNIEnv *jni)
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
    return m_clone && m_new_array && m_alloc_instance && m_new_instance && m_copy_of &&
           m_copy_of_range;
}

/* Objects that exist before counting starts are tagged (site bits 0), so
 * that the live count never takes them for uncounted allocations. */
static jint JNICALL tag_existing(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                                 void *user_data)
{
    (void)class_tag, (void)size, (void)length, (void)user_data;
    *tag_ptr = (jlong)hp_objid_new(0);
    return 0;
}

static void give_stack(JNIEnv *jni, jthread thread)
{
    (*jni)->CallStaticVoidMethod(jni, tracker, m_give_stack, thread);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
}

/* Shadow stacks for the threads running at VM init; later ones get theirs
 * at ThreadStart (hp_sites_exact_thread_start). */
static void give_stacks(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetAllThreads(jvmti, &n, &threads), "GetAllThreads")) return;
    for (jint i = 0; i < n; i++) {
        give_stack(jni, threads[i]);
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
}

void hp_sites_exact_thread_start(JNIEnv *jni, jthread thread, const struct hp_thread *t)
{
    if (atomic_load(&stacks) && !t->agent) give_stack(jni, thread);
}

void hp_sites_exact_vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    tracker = hp_instr_class(HP_SITES_CLASS);
    jmethodID engage = tracker ? (*jni)->GetStaticMethodID(jni, tracker, "engage", "()V") : NULL;
    m_retire = tracker
                   ? (*jni)->GetStaticMethodID(jni, tracker, "retire", "()Ljava/lang/HprofSites;")
                   : NULL;
    m_states = tracker
                   ? (*jni)->GetStaticMethodID(jni, tracker, "states", "()[Ljava/lang/HprofSites;")
                   : NULL;
    m_give_stack =
        tracker ? (*jni)->GetStaticMethodID(jni, tracker, "giveStack", "(Ljava/lang/Thread;)V")
                : NULL;
    if (tracker) {
        f_thread = (*jni)->GetFieldID(jni, tracker, "thread", "Ljava/lang/Thread;");
        f_n = (*jni)->GetFieldID(jni, tracker, "n", "I");
        f_keys = (*jni)->GetFieldID(jni, tracker, "keys", "[I");
        f_cnt = (*jni)->GetFieldID(jni, tracker, "cnt", "[J");
        f_bytes = (*jni)->GetFieldID(jni, tracker, "bytes", "[J");
        f_kid = (*jni)->GetFieldID(jni, tracker, "kid", "[I");
    }
    if ((*jni)->ExceptionCheck(jni) || !engage || !m_retire || !m_states || !m_give_stack ||
        !f_thread || !f_n || !f_keys || !f_cnt || !f_bytes || !f_kid) {
        (*jni)->ExceptionClear(jni);
        tracker = NULL;
        hp_error("heap=sites: the tracker class is not usable; no SITES data");
        return;
    }
    if (!find_natives(jni)) {
        tracker = NULL;
        hp_error("heap=sites: cannot find the allocating natives; no SITES data");
        return;
    }
    if (!learn_layout(jvmti, jni)) {
        tracker = NULL;
        hp_error("heap=sites: cannot learn the JVM's array layout; no SITES data");
        return;
    }
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = tag_existing;
    hp_jvmti_ok(jvmti,
                (*jvmti)->IterateThroughHeap(jvmti, JVMTI_HEAP_FILTER_TAGGED, NULL, &cb, NULL),
                "IterateThroughHeap");
    (*jni)->CallStaticVoidMethod(jni, tracker, engage);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionDescribe(jni);
        tracker = NULL;
        hp_error("heap=sites: the tracker class could not start; no SITES data");
        return;
    }
    /* ThreadStart may already run on other threads: from here on it gives
     * stacks too (giveStack makes one stack per thread). */
    atomic_store(&stacks, on_stack());
    if (on_stack()) give_stacks(jvmti, jni);
    atomic_store(&recording, true);
    hp_jvmti_ok(
        jvmti,
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL),
        "SetEventNotificationMode");
}

void hp_sites_exact_vm_death(jvmtiEnv *jvmti)
{
    atomic_store(&recording, false);
    hp_jvmti_ok(
        jvmti,
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, NULL),
        "SetEventNotificationMode");
}

/* ---- reading the tracker ---- */

/* Per key, this dump's figures. */
struct tally {
    uint64_t objs, bytes;                    /* allocated */
    uint64_t live, live_bytes, live_sampled; /* tagged objects found live */
};

/* Calls add(key, objs, bytes) for every slot of a tracker state. */
static void read_state(jvmtiEnv *jvmti, JNIEnv *jni, jobject state, uint32_t serial,
                       void (*add)(uint32_t key, uint64_t objs, uint64_t bytes, void *ctx),
                       void *ctx)
{
    jint n = (*jni)->GetIntField(jni, state, f_n);
    if (n <= 0 || (int64_t)n * width > INT32_MAX) return;
    if (hp.opt.thread && serial == 0) {
        jobject thread = (*jni)->GetObjectField(jni, state, f_thread);
        struct hp_thread *t = thread ? hp_thread_get(jvmti, thread) : NULL;
        serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
        if (thread) (*jni)->DeleteLocalRef(jni, thread);
    }
    jint *keys = hp_instr_copy_array(jni, state, f_keys, n * width, false);
    jlong *cnt = hp_instr_copy_array(jni, state, f_cnt, n, true);
    jlong *bytes = hp_instr_copy_array(jni, state, f_bytes, n, true);
    jint *kid = hp_instr_copy_array(jni, state, f_kid, n, false);
    for (jint j = 0; keys && cnt && bytes && kid && j < n; j++) {
        if (cnt[j] <= 0) continue;
        uint32_t k = kid[j] > 0
                         ? (uint32_t)kid[j]
                         : hp_key_intern(hp.opt.thread ? serial : 0, keys + (size_t)j * width);
        if (k == 0)
            lost_key();
        else
            add(k, (uint64_t)cnt[j], (uint64_t)bytes[j], ctx);
    }
    free(keys);
    free(cnt);
    free(bytes);
    free(kid);
}

static void add_to_key(uint32_t kid, uint64_t objs, uint64_t bytes, void *ctx)
{
    (void)ctx;
    struct hp_key *k = hp_key_get(kid);
    atomic_fetch_add_explicit(&k->objs, objs, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->bytes, bytes, memory_order_relaxed);
}

void hp_sites_exact_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_thread *t)
{
    if (tracker == NULL || t->agent) return;
    pthread_mutex_lock(&fold_lock);
    jobject state = (*jni)->CallStaticObjectMethod(jni, tracker, m_retire);
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    else if (state)
        read_state(jvmti, jni, state, t->serial, add_to_key, NULL);
    if (state) (*jni)->DeleteLocalRef(jni, state);
    pthread_mutex_unlock(&fold_lock);
}

struct tallies {
    struct tally *t;
    uint32_t n; /* keys 1..n */
};

static void add_to_tally(uint32_t kid, uint64_t objs, uint64_t bytes, void *ctx)
{
    struct tallies *ts = ctx;
    if (kid > ts->n) return; /* made after this dump's count of keys: next dump */
    ts->t[kid].objs += objs;
    ts->t[kid].bytes += bytes;
}

/* Allocated counts per key: the running threads' slots plus what ended
 * threads and the JVM added. */
static void tally_allocated(jvmtiEnv *jvmti, JNIEnv *jni, struct tallies *ts)
{
    jobjectArray states = (*jni)->CallStaticObjectMethod(jni, tracker, m_states);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        states = NULL;
    }
    jint len = states ? (*jni)->GetArrayLength(jni, states) : 0;
    for (jint i = 0; i < len; i++) {
        jobject st = (*jni)->GetObjectArrayElement(jni, states, i);
        if (st == NULL) continue;
        read_state(jvmti, jni, st, 0, add_to_tally, ts);
        (*jni)->DeleteLocalRef(jni, st);
    }
    if (states) (*jni)->DeleteLocalRef(jni, states);
    for (uint32_t k = 1; k <= ts->n; k++) {
        struct hp_key *key = hp_key_get(k);
        ts->t[k].objs += atomic_load_explicit(&key->objs, memory_order_relaxed);
        ts->t[k].bytes += atomic_load_explicit(&key->bytes, memory_order_relaxed);
    }
}

/* ---- keys to sites ---- */

static void want_methods(uint32_t n)
{
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t serial;
        const jint *ints = atomic_load(&hp_key_get(k)->site) ? NULL : hp_key_ints(k, &serial);
        const struct hp_bsite *b = ints ? hp_bsite_get(ints[0]) : NULL;
        if (b == NULL) continue;
        hp_instr_want(b->mnum);
        for (int j = 1; j < width; j++)
            if (ints[j] >= 0) hp_instr_want(ints[j]);
    }
}

/* The site of a tracker key: the class of its objects and the trace (the
 * allocating method at the site's line, then the shadow stack's callers at
 * their calls' lines). 0 while its class is unknown. */
static uint32_t resolve(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t k)
{
    uint32_t thread_serial;
    const jint *ints = hp_key_ints(k, &thread_serial);
    const struct hp_bsite *b = ints ? hp_bsite_get(ints[0]) : NULL;
    if (b == NULL) return 0;
    uint32_t cls = atomic_load_explicit(&b->class_serial, memory_order_acquire);
    if (cls == 0) return 0;
    jint mnums[HP_MAX_DEPTH];
    uint32_t n = 0;
    if (hp.opt.depth > 0) {
        mnums[n++] = b->mnum;
        /* Callers only if the shadow stack's top is the allocating method
         * (not so on threads whose older frames predate counting), always
         * from the window (whose key says TOP). */
        if (width > 1 && (hp_instr_method_of(ints[1]) == b->mnum || ints[1] == KEY_TOP))
            for (int j = 2; j < width && ints[j] >= 0 && n < (uint32_t)hp.opt.depth; j++)
                mnums[n++] = ints[j];
    }
    uint32_t trace = hp_instr_trace(jvmti, jni, mnums, n, b->line, thread_serial);
    return hp_site_intern(cls, trace);
}

/* ---- liveness ---- */

/* Class object tag -> class serial, for the heap walk's class_tag. */
struct class_map {
    jlong *tags;
    uint32_t *serial;
    uint32_t mask;
};

static uint32_t map_slot(const struct class_map *m, jlong tag)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & m->mask;
    while (m->tags[i] != 0 && m->tags[i] != tag)
        i = (i + 1) & m->mask;
    return i;
}

struct walk {
    struct class_map map;
    struct tally *t;
    uint32_t n_keys;
    uint64_t *u_objs, *u_bytes; /* per class serial - base: untagged live objects */
};

/* Runs on the VM thread with the world stopped: no locks, no output. */
static jint JNICALL count_live(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                               void *user_data)
{
    (void)length;
    struct walk *w = user_data;
    if (*tag_ptr != 0) {
        uint32_t bits = hp_objid_site((hp_objid_t)*tag_ptr);
        uint32_t k = bits & HP_KEY_MAX;
        if (k == 0 || k > w->n_keys) return 0;
        w->t[k].live++;
        w->t[k].live_bytes += (uint64_t)size;
        if (bits & HP_KEY_SAMPLED) w->t[k].live_sampled++;
        return 0;
    }
    if (class_tag == 0) return 0;
    uint32_t i = map_slot(&w->map, class_tag);
    if (w->map.tags[i] == 0) return 0;
    uint32_t c = w->map.serial[i] - HP_CLASS_SERIAL_BASE;
    w->u_objs[c]++;
    w->u_bytes[c] += (uint64_t)size;
    return 0;
}

static bool walk_heap(jvmtiEnv *jvmti, struct walk *w, uint32_t n_classes)
{
    uint32_t cap = 16;
    while (cap < 2 * n_classes + 2)
        cap *= 2;
    w->map.tags = calloc(cap, sizeof *w->map.tags);
    w->map.serial = calloc(cap, sizeof *w->map.serial);
    w->map.mask = cap - 1;
    w->u_objs = calloc((size_t)n_classes + 1, sizeof *w->u_objs);
    w->u_bytes = calloc((size_t)n_classes + 1, sizeof *w->u_bytes);
    if (!w->map.tags || !w->map.serial || !w->u_objs || !w->u_bytes) return false;
    for (uint32_t c = 0; c < n_classes; c++) {
        const struct hp_class *k = hp_class_get(HP_CLASS_SERIAL_BASE + c);
        if (k == NULL || k->obj == 0) continue;
        uint32_t i = map_slot(&w->map, (jlong)k->obj);
        w->map.tags[i] = (jlong)k->obj;
        w->map.serial[i] = k->serial;
    }
    hp_gc_for_dump(jvmti);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = count_live;
    return hp_jvmti_ok(jvmti, (*jvmti)->IterateThroughHeap(jvmti, 0, NULL, &cb, w),
                       "IterateThroughHeap");
}

/* Per class: the untagged live objects are split over the class's keys by
 * their estimated untagged survivors (sampled tags), or by their untagged
 * allocations when no sampled tag survived; never more than a key's untagged
 * allocations. A class allocated at one key only is exact. */
struct class_sum {
    double est, untagged;
};

static void estimate(const struct walk *w, uint32_t n_keys, const uint32_t *cls,
                     struct hp_sites_live *live, const uint32_t *site_of)
{
    uint32_t n_classes = hp_class_count();
    struct class_sum *cs = calloc((size_t)n_classes + 1, sizeof *cs);
    double *est = calloc((size_t)n_keys + 1, sizeof *est);
    if (cs == NULL || est == NULL) {
        free(cs);
        free(est);
        return;
    }
    for (uint32_t k = 1; k <= n_keys; k++) {
        if (cls[k] == 0 || cls[k] - HP_CLASS_SERIAL_BASE >= n_classes) continue;
        const struct hp_key *key = hp_key_get(k);
        const struct tally *t = &w->t[k];
        uint64_t tagged = atomic_load(&key->tagged), sampled = atomic_load(&key->sampled);
        double untagged = t->objs > tagged ? (double)(t->objs - tagged) : 0;
        est[k] = sampled ? untagged * (double)t->live_sampled / (double)sampled : 0;
        cs[cls[k] - HP_CLASS_SERIAL_BASE].est += est[k];
        cs[cls[k] - HP_CLASS_SERIAL_BASE].untagged += untagged;
    }
    for (uint32_t k = 1; k <= n_keys; k++) {
        uint32_t site = site_of[k];
        if (site == 0 || site > live->n_sites) continue;
        const struct tally *t = &w->t[k];
        uint64_t objs = t->live, bytes = t->live_bytes;
        uint32_t c = cls[k] - HP_CLASS_SERIAL_BASE;
        if (cls[k] != 0 && c < n_classes && w->u_objs[c] > 0) {
            const struct hp_key *key = hp_key_get(k);
            uint64_t tagged = atomic_load(&key->tagged);
            double untagged = t->objs > tagged ? (double)(t->objs - tagged) : 0;
            double share = cs[c].est > 0        ? est[k] / cs[c].est
                           : cs[c].untagged > 0 ? untagged / cs[c].untagged
                                                : 0;
            double n = share * (double)w->u_objs[c] + 0.5;
            if (n > untagged) n = untagged;
            uint64_t extra = (uint64_t)n;
            objs += extra;
            bytes += (uint64_t)((double)w->u_bytes[c] * (double)extra / (double)w->u_objs[c]);
        }
        live->objs[site] += objs * HP_SITE_ONE;
        live->bytes[site] += bytes;
    }
    free(cs);
    free(est);
}

bool hp_sites_exact_collect(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live)
{
    memset(live, 0, sizeof *live);
    if (tracker == NULL) return false;
    pthread_mutex_lock(&fold_lock);
    struct walk w = {.n_keys = hp_key_count()};
    uint32_t n_classes = hp_class_count();
    struct tallies ts = {.n = w.n_keys};
    ts.t = w.t = calloc((size_t)w.n_keys + 1, sizeof *w.t);
    uint32_t *cls = calloc((size_t)w.n_keys + 1, sizeof *cls);
    uint32_t *site_of = calloc((size_t)w.n_keys + 1, sizeof *site_of);
    bool ok = ts.t && cls && site_of && walk_heap(jvmti, &w, n_classes);
    if (ok) {
        /* After the walk: every live object was allocated before this count. */
        tally_allocated(jvmti, jni, &ts);
        want_methods(ts.n);
        hp_instr_resolve(jvmti, jni);
        for (uint32_t k = 1; k <= ts.n; k++) {
            struct hp_key *key = hp_key_get(k);
            uint32_t site = atomic_load(&key->site);
            if (site == 0 && ts.t[k].objs > 0 && (site = resolve(jvmti, jni, k)) != 0)
                atomic_store(&key->site, site);
            site_of[k] = site;
            cls[k] = hp_site_class_serial(site);
        }
        live->n_sites = hp_site_count();
        live->objs = calloc((size_t)live->n_sites + 1, sizeof *live->objs);
        live->bytes = calloc((size_t)live->n_sites + 1, sizeof *live->bytes);
        uint64_t *objs = calloc((size_t)live->n_sites + 1, sizeof *objs);
        uint64_t *bytes = calloc((size_t)live->n_sites + 1, sizeof *bytes);
        ok = live->objs && live->bytes && objs && bytes;
        if (ok) {
            for (uint32_t k = 1; k <= ts.n; k++) {
                if (site_of[k] == 0 || site_of[k] > live->n_sites) continue;
                uint64_t b = ts.t[k].bytes;
                uint32_t serial;
                const jint *ints = hp_key_ints(k, &serial);
                const struct hp_bsite *bs = ints ? hp_bsite_get(ints[0]) : NULL;
                if (bs && (ints[0] & HP_BSITE_KIND_MASK) == HP_BSITE_INSTANCE)
                    b = ts.t[k].objs * atomic_load(&bs->instance_size);
                ts.t[k].bytes = b;
                objs[site_of[k]] += ts.t[k].objs;
                bytes[site_of[k]] += b;
            }
            for (uint32_t s = 1; s <= live->n_sites; s++) {
                struct hp_site *site = hp_site_get(s);
                if (site == NULL) continue;
                atomic_store(&site->alloc_objs, objs[s] * HP_SITE_ONE);
                atomic_store(&site->alloc_bytes, bytes[s]);
            }
            estimate(&w, ts.n, cls, live, site_of);
        }
        free(objs);
        free(bytes);
    }
    pthread_mutex_unlock(&fold_lock);
    if (!ok) {
        hp_error("out of memory counting allocation sites");
        hp_sites_live_free(live);
    }
    free(w.map.tags);
    free(w.map.serial);
    free(w.u_objs);
    free(w.u_bytes);
    free(ts.t);
    free(cls);
    free(site_of);
    return ok;
}
