#include "agent/tables/thread.h"

#include "agent/io/writer.h"
#include "agent/output/encoder.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hp_thread **all;
static uint32_t n_all, cap_all;
static uint32_t next_serial = HP_THREAD_SERIAL_UNKNOWN + 1;

struct hp_thread *hp_thread_get(jvmtiEnv *jvmti, jthread thread)
{
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, thread, &p) != JVMTI_ERROR_NONE) return NULL;
    return p;
}

static void release(jvmtiEnv *jvmti, JNIEnv *jni, jvmtiThreadInfo *ti, jvmtiThreadGroupInfo *gi,
                    jvmtiThreadGroupInfo *pi)
{
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ti->name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)gi->name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)pi->name);
    if (ti->thread_group) (*jni)->DeleteLocalRef(jni, ti->thread_group);
    if (ti->context_class_loader) (*jni)->DeleteLocalRef(jni, ti->context_class_loader);
    if (gi->parent) (*jni)->DeleteLocalRef(jni, gi->parent);
}

static void announce(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, const struct hp_thread *t)
{
    jvmtiThreadInfo ti = {0};
    jvmtiThreadGroupInfo gi = {0}, pi = {0};
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &ti) != JVMTI_ERROR_NONE) memset(&ti, 0, sizeof ti);
    if (ti.thread_group &&
        (*jvmti)->GetThreadGroupInfo(jvmti, ti.thread_group, &gi) != JVMTI_ERROR_NONE)
        memset(&gi, 0, sizeof gi);
    if (gi.parent && (*jvmti)->GetThreadGroupInfo(jvmti, gi.parent, &pi) != JVMTI_ERROR_NONE)
        memset(&pi, 0, sizeof pi);
    struct hp_thread_view v = {t->serial, t->obj, HP_TRACE_EMPTY, ti.name, gi.name, pi.name};
    hp_encoder()->thread_start(&v);
    release(jvmti, jni, &ti, &gi, &pi);
}

struct hp_thread *hp_thread_seen(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, bool current,
                                 bool agent)
{
    struct hp_thread *t = hp_thread_get(jvmti, thread);
    if (t) return t;
    /* Output lock first (the project's lock order), held until THREAD START
     * is written so that no THREAD END can precede it. */
    hp_out_lock();
    pthread_mutex_lock(&threads_lock);
    t = hp_thread_get(jvmti, thread);
    bool fresh = false;
    if (t == NULL && n_all == cap_all) {
        uint32_t cap = cap_all ? cap_all * 2 : 64;
        struct hp_thread **grown = realloc(all, cap * sizeof(*all));
        if (grown) {
            all = grown;
            cap_all = cap;
        }
    }
    if (t == NULL && n_all < cap_all && (t = calloc(1, sizeof *t)) != NULL) {
        t->obj = hp_objid_of(jvmti, thread);
        t->tid = current ? gettid() : 0;
        t->agent = agent;
        if ((*jvmti)->SetThreadLocalStorage(jvmti, thread, t) != JVMTI_ERROR_NONE) {
            free(t); /* the thread is no longer alive */
            t = NULL;
        } else {
            t->serial = next_serial++;
            all[n_all++] = t;
            fresh = true;
        }
    }
    pthread_mutex_unlock(&threads_lock);
    if (fresh) announce(jvmti, jni, thread, t);
    hp_out_unlock();
    return t;
}

uint32_t hp_thread_pseudo(const char *name, const char *group)
{
    hp_out_lock();
    pthread_mutex_lock(&threads_lock);
    uint32_t serial = next_serial++;
    pthread_mutex_unlock(&threads_lock);
    struct hp_thread_view v = {serial, hp_objid_new(0), HP_TRACE_EMPTY, name, group, NULL};
    hp_encoder()->thread_start(&v);
    hp_out_unlock();
    return serial;
}

void hp_thread_ended(jvmtiEnv *jvmti, jthread thread)
{
    struct hp_thread *t = hp_thread_get(jvmti, thread);
    if (t && !atomic_exchange(&t->ended, true)) hp_encoder()->thread_end(t->serial);
}

void hp_thread_table_reset(void)
{
    pthread_mutex_lock(&threads_lock);
    n_all = 0;
    next_serial = HP_THREAD_SERIAL_UNKNOWN + 1;
    pthread_mutex_unlock(&threads_lock);
}

void hp_thread_foreach(void (*fn)(struct hp_thread *t, void *ctx), void *ctx)
{
    pthread_mutex_lock(&threads_lock);
    for (uint32_t i = 0; i < n_all; i++)
        fn(all[i], ctx);
    pthread_mutex_unlock(&threads_lock);
}
