/* java.lang.HprofSites' natives (see agent/instrument/instrument.h for why
 * they are exported functions): tagging the objects a slot counts, deriving
 * the sites of intrinsics' results, keys for classes, the tracker's lock
 * back-off, folding the states of ended threads, and the figures the
 * tracker asks for at start (config), among them the JVM's array layout
 * learned at VM init. */
#include "agent/core/agent.h"
#include "agent/core/in_agent.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/bsite.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/tables/class.h"
#include "agent/tables/thread.h"

#include <sched.h>
#include <string.h>

/* Per slot, the first EXACT_TAGS objects are tagged, then one in
 * SAMPLE_EVERY (a power of two); with heap=all every one. */
#define EXACT_TAGS 512
#define SAMPLE_EVERY 1024

static jint align; /* object alignment in bytes */

/* Array layout per kind (Z B C S I F J D, references): size(n) =
 * align(base + n << shift), learned from the sizes of a few arrays. */
static jint base[9], shift[9];

static uint32_t thread_serial_now(jvmtiEnv *jvmti)
{
    if (!hp.opt.thread) return 0;
    const struct hp_thread *t = hp_thread_get(jvmti, NULL);
    return t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
}

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

static bool set_tag(jvmtiEnv *jvmti, jobject o, jlong tag)
{
    uint64_t t0 = hp_mono_ns();
    jvmtiError err = (*jvmti)->SetTag(jvmti, o, tag);
    /* Over 20 us: it waited for the tag map's lock. Threads tagging in a
     * loop took it back at once, and a thread woken for it rarely got a
     * CPU first (heap=all, ManyThreadsExit on JDK 25: main made its 200
     * threads in over 300 s; yielding, the run took 90 s, as on the JVM TI
     * route). */
    if (hp_mono_ns() - t0 > 20000) sched_yield();
    return err == JVMTI_ERROR_NONE;
}

/* The object is recorded to be tagged if it is alive at a dump
 * (survivors.c); otherwise (attached, or that is full) it is tagged now. */
static jint tag(jvmtiEnv *jvmti, JNIEnv *jni, jobject o, jintArray keys, jint at, jint kid,
                jboolean sampled)
{
    if (kid <= 0) {
        jint buf[HP_KEY_MAX_INTS];
        (*jni)->GetIntArrayRegion(jni, keys, at, hp_key_width(), buf);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
        struct hp_bsite *b = hp_bsite_get(buf[0]);
        if (b == NULL) return -1;
        if (!learn_class(jvmti, jni, b, o)) return 0;
        kid = (jint)hp_key_intern(thread_serial_now(jvmti), buf);
        if (kid == 0) {
            hp_key_lost();
            return -1;
        }
    }
    struct hp_key *key = hp_key_get((uint32_t)kid);
    if (key == NULL) return -1;
    uint32_t bits = (uint32_t)kid | (sampled ? HP_KEY_SAMPLED : 0);
    bool later = hp_sites_exact_survivors_record(jni, o, bits);
    if (!later && !set_tag(jvmti, o, (jlong)hp_objid_new(bits))) return -1;
    atomic_fetch_add_explicit(&key->tagged, 1, memory_order_relaxed);
    if (sampled) atomic_fetch_add_explicit(&key->sampled, 1, memory_order_relaxed);
    return kid;
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_tag(JNIEnv *jni, jclass k, jobject o,
                                                     jintArray keys, jint at, jint kid,
                                                     jboolean sampled)
{
    (void)k;
    if (o == NULL || !hp_sites_exact_native_enter())
        return -1; /* engage() links the native with null */
    hp_in_agent_enter();
    jint r = tag(hp.jvmti, jni, o, keys, at, kid, sampled);
    hp_in_agent_leave(hp.jvmti, jni);
    hp_sites_exact_native_leave();
    return r;
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_derive(JNIEnv *jni, jclass k, jint site, jclass c)
{
    (void)jni, (void)k;
    char *sig = NULL;
    if (c == NULL || !hp_sites_exact_native_enter())
        return -1; /* engage() links the native with null */
    int d = -1;
    if ((*hp.jvmti)->GetClassSignature(hp.jvmti, c, &sig, NULL) == JVMTI_ERROR_NONE) {
        d = hp_bsite_derive(site, sig);
        (*hp.jvmti)->Deallocate(hp.jvmti, (unsigned char *)sig);
    }
    hp_sites_exact_native_leave();
    return d;
}

/* What classKey (a class: itself or a weak reference) or weak (always a
 * weak reference) keeps of `o`; a reference it made is the tracker's own,
 * never a live object. */
static jobject kept(JNIEnv *jni, jobject o, bool class_key)
{
    if (o == NULL || !hp_sites_exact_native_enter())
        return NULL; /* engage() links the natives with null */
    hp_in_agent_enter();
    jobject r =
        class_key ? hp_sites_exact_class_key(hp.jvmti, jni, o) : hp_sites_exact_weak(jni, o);
    if (r && !(*jni)->IsSameObject(jni, r, o))
        (*hp.jvmti)->SetTag(hp.jvmti, r, (jlong)hp_objid_new(0));
    hp_in_agent_leave(hp.jvmti, jni);
    hp_sites_exact_native_leave();
    return r;
}

JNIEXPORT jobject JNICALL Java_java_lang_HprofSites_classKey(JNIEnv *jni, jclass k, jclass c)
{
    (void)k;
    return kept(jni, c, true);
}

JNIEXPORT jobject JNICALL Java_java_lang_HprofSites_weak(JNIEnv *jni, jclass k, jobject o)
{
    (void)k;
    return kept(jni, o, false);
}

JNIEXPORT void JNICALL Java_java_lang_HprofSites_backoff(JNIEnv *jni, jclass k, jint round)
{
    (void)k;
    hp_in_agent_enter();
    hp_instr_backoff(round);
    hp_in_agent_leave(hp.jvmti, jni);
}

JNIEXPORT void JNICALL Java_java_lang_HprofSites_sweep(JNIEnv *jni, jclass k, jint link)
{
    (void)k;
    if (link < 0 || !hp_sites_exact_native_enter()) return; /* engage() links the native with -1 */
    hp_in_agent_enter();
    hp_sites_exact_fold_ended(hp.jvmti, jni);
    hp_in_agent_leave(hp.jvmti, jni);
    hp_sites_exact_native_leave();
}

JNIEXPORT void JNICALL Java_java_lang_HprofSites_own(JNIEnv *jni, jclass k, jobject o)
{
    (void)k;
    if (!hp_sites_exact_native_enter()) return;
    hp_in_agent_enter();
    /* Site bits 0: tagged, so never counted as an untagged live object. */
    (*hp.jvmti)->SetTag(hp.jvmti, o, (jlong)hp_objid_new(0));
    hp_in_agent_leave(hp.jvmti, jni);
    hp_sites_exact_native_leave();
}

JNIEXPORT jint JNICALL Java_java_lang_HprofSites_config(JNIEnv *jni, jclass k, jint what)
{
    (void)jni, (void)k;
    switch (what) {
    case 0:
        return hp.opt.depth;
    case 1:
        return hp_sites_exact_tags_all() ? INT32_MAX : EXACT_TAGS;
    case 2:
        return hp_sites_exact_tags_all() ? 1 : SAMPLE_EVERY;
    case 3:
        return align;
    case 4:
        return hp_sites_exact_on_stack();
    case 5:
        return hp_sites_exact_tags_all();
    default:
        return what >= 10 && what < 19   ? base[what - 10]
               : what >= 20 && what < 29 ? shift[what - 20]
                                         : 0;
    }
}

/* ---- the JVM's array layout ---- */

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

bool hp_sites_exact_learn_layout(jvmtiEnv *jvmti, JNIEnv *jni)
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
