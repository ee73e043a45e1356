/* Reading java.lang.HprofSites' per-thread states: an ending thread's
 * counts are folded into its keys (ThreadEnd; a sweep for the threads that
 * ended without one, virtual threads), a dump adds up every running
 * thread's and the folded ones per key. */
#include "agent/core/agent.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/tables/thread.h"

#include <pthread.h>
#include <stdlib.h>

static jclass tracker;
static jmethodID m_retire, m_states, m_ended;
static jfieldID f_thread, f_n, f_keys, f_cnt, f_bytes, f_kid;
static pthread_mutex_t fold_lock = PTHREAD_MUTEX_INITIALIZER; /* ended-thread folds vs dumps */

bool hp_sites_exact_tally_init(JNIEnv *jni, jclass tracker_class)
{
    tracker = tracker_class;
    m_retire = (*jni)->GetStaticMethodID(jni, tracker, "retire", "()Ljava/lang/HprofSites;");
    m_states = (*jni)->GetStaticMethodID(jni, tracker, "states", "()[Ljava/lang/HprofSites;");
    m_ended = (*jni)->GetStaticMethodID(jni, tracker, "ended", "()[Ljava/lang/HprofSites;");
    f_thread = (*jni)->GetFieldID(jni, tracker, "threadRef", "Ljava/lang/Object;");
    f_n = (*jni)->GetFieldID(jni, tracker, "n", "I");
    f_keys = (*jni)->GetFieldID(jni, tracker, "keys", "[I");
    f_cnt = (*jni)->GetFieldID(jni, tracker, "cnt", "[J");
    f_bytes = (*jni)->GetFieldID(jni, tracker, "bytes", "[J");
    f_kid = (*jni)->GetFieldID(jni, tracker, "kid", "[I");
    return m_retire && m_states && m_ended && f_thread && f_n && f_keys && f_cnt && f_bytes &&
           f_kid;
}

void hp_sites_exact_folds_lock(void)
{
    pthread_mutex_lock(&fold_lock);
}

void hp_sites_exact_folds_unlock(void)
{
    pthread_mutex_unlock(&fold_lock);
}

/* Calls add(key, objs, bytes) for every slot of a tracker state. */
static void read_state(jvmtiEnv *jvmti, JNIEnv *jni, jobject state, uint32_t serial,
                       void (*add)(uint32_t key, uint64_t objs, uint64_t bytes, void *ctx),
                       void *ctx)
{
    int width = hp_key_width();
    jint n = (*jni)->GetIntField(jni, state, f_n);
    if (n <= 0 || (int64_t)n * width > INT32_MAX) return;
    if (hp.opt.thread && serial == 0) {
        jobject ref = (*jni)->GetObjectField(jni, state, f_thread);
        jobject thread = hp_sites_exact_weak_get(jni, ref);
        struct hp_thread *t = thread ? hp_thread_get(jvmti, thread) : NULL;
        serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
        if (thread) (*jni)->DeleteLocalRef(jni, thread);
        if (ref) (*jni)->DeleteLocalRef(jni, ref);
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
            hp_key_lost();
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

void hp_sites_exact_fold(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_thread *t)
{
    pthread_mutex_lock(&fold_lock);
    jobject state = (*jni)->CallStaticObjectMethod(jni, tracker, m_retire);
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    else if (state)
        read_state(jvmti, jni, state, t->serial, add_to_key, NULL);
    if (state) (*jni)->DeleteLocalRef(jni, state);
    pthread_mutex_unlock(&fold_lock);
}

/* Reads every state of the array the tracker's static method `m` returns
 * (states(): the running threads'; ended(): those it took out, then
 * nulls). */
static void read_states(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m,
                        void (*add)(uint32_t key, uint64_t objs, uint64_t bytes, void *ctx),
                        void *ctx)
{
    jobjectArray states = (*jni)->CallStaticObjectMethod(jni, tracker, m);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    jint len = states ? (*jni)->GetArrayLength(jni, states) : 0;
    for (jint i = 0; i < len; i++) {
        jobject st = (*jni)->GetObjectArrayElement(jni, states, i);
        if (st == NULL) break;
        read_state(jvmti, jni, st, 0, add, ctx);
        (*jni)->DeleteLocalRef(jni, st);
    }
    if (states) (*jni)->DeleteLocalRef(jni, states);
}

/* From an allocating thread (HprofSites.sweep): skipped while a dump or a
 * ThreadEnd fold holds the lock, never waited for, as the thread may hold
 * what a dump's Java calls need (a class being initialised); the next
 * thread to register tries again. */
void hp_sites_exact_fold_ended(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (pthread_mutex_trylock(&fold_lock) != 0) return;
    read_states(jvmti, jni, m_ended, add_to_key, NULL);
    pthread_mutex_unlock(&fold_lock);
}

static void add_to_tally(uint32_t kid, uint64_t objs, uint64_t bytes, void *ctx)
{
    struct hp_sites_tallies *ts = ctx;
    if (kid > ts->n) return; /* made after this dump's count of keys: next dump */
    ts->t[kid].objs += objs;
    ts->t[kid].bytes += bytes;
}

/* Allocated counts per key: the running threads' slots plus what ended
 * threads and the JVM added. */
void hp_sites_exact_tally_allocated(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_tallies *ts)
{
    read_states(jvmti, jni, m_states, add_to_tally, ts);
    for (uint32_t k = 1; k <= ts->n; k++) {
        struct hp_key *key = hp_key_get(k);
        ts->t[k].objs += atomic_load_explicit(&key->objs, memory_order_relaxed);
        ts->t[k].bytes += atomic_load_explicit(&key->bytes, memory_order_relaxed);
    }
}
