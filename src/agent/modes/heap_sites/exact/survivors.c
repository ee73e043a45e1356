/* heap=all tags only the objects that survive a collection. JVM TI's tag
 * map costs a locked hash insert per SetTag and, after every GC, a sweep of
 * the dead entries; most objects die young and would pay both for nothing.
 * So the tracker's tag() records each object as a JNI weak global reference
 * with its tag in its thread's chunk, and after each GC (the GC event only
 * posts a semaphore) an agent thread tags the objects still alive and
 * deletes the references. A dump drains every chunk after its forced GC, so
 * each live object is tagged before the heap walk. A weak reference never
 * keeps its object alive.
 *
 * Chunks: the owning thread appends and publishes the count; the drainer
 * reads up to the count it saw and frees a chunk once its owner is done
 * with it (full, or its thread ended) and every entry is drained. The
 * chunks in use are bounded: beyond that, tag() tags at once. */
#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/tables/objid.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

#define CHUNK_ENTRIES 1024
/* 12 bytes an entry (and the JVM's 8 for the reference): at most 96 MB of
 * chunks, 8 M objects allocated between two collections. */
#define MAX_CHUNKS 8192

struct chunk {
    struct chunk *next; /* in the list of chunks in use */
    _Atomic uint32_t n; /* entries written, published by the owner */
    atomic_bool done;   /* the owner appends no more */
    /* The drainer's: entries handled, entries to handle this round, and
     * whether the owner was done when the round began. */
    uint32_t drained, limit;
    bool retire;
    jweak ref[CHUNK_ENTRIES];
    uint32_t site_bits[CHUNK_ENTRIES]; /* the tag's, hp_objid_new() */
};

static struct chunk *_Atomic chunks; /* in use, newest first */
static atomic_int n_chunks;
static _Thread_local struct chunk *mine;
static pthread_key_t thread_end_key; /* hands an ending thread's chunk over */
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t gc_done;
static atomic_bool started, stopping;
static atomic_bool draining; /* the drainer thread runs */

static void push_chunks(struct chunk *first, struct chunk *last)
{
    last->next = atomic_load_explicit(&chunks, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&chunks, &last->next, first, memory_order_release,
                                                  memory_order_relaxed)) {
    }
}

static void owner_done(void *c)
{
    atomic_store_explicit(&((struct chunk *)c)->done, true, memory_order_release);
}

static struct chunk *new_chunk(void)
{
    if (atomic_fetch_add(&n_chunks, 1) >= MAX_CHUNKS) {
        atomic_fetch_sub(&n_chunks, 1);
        return NULL;
    }
    struct chunk *c = malloc(sizeof *c);
    if (c == NULL) {
        atomic_fetch_sub(&n_chunks, 1);
        return NULL;
    }
    atomic_init(&c->n, 0);
    atomic_init(&c->done, false);
    c->drained = c->limit = 0;
    c->retire = false;
    push_chunks(c, c);
    pthread_setspecific(thread_end_key, c);
    return c;
}

bool hp_sites_exact_survivors_record(JNIEnv *jni, jobject o, uint32_t site_bits)
{
    if (!atomic_load_explicit(&started, memory_order_relaxed)) return false;
    struct chunk *c = mine ? mine : (mine = new_chunk());
    if (c == NULL) return false;
    jweak ref = (*jni)->NewWeakGlobalRef(jni, o);
    if (ref == NULL) return false;
    uint32_t i = atomic_load_explicit(&c->n, memory_order_relaxed);
    c->ref[i] = ref;
    c->site_bits[i] = site_bits;
    atomic_store_explicit(&c->n, i + 1, memory_order_release);
    if (i + 1 == CHUNK_ENTRIES) {
        pthread_setspecific(thread_end_key, NULL);
        owner_done(c);
        mine = NULL;
    }
    return true;
}

static void tag_survivors(jvmtiEnv *jvmti, JNIEnv *jni, struct chunk *c)
{
    for (uint32_t i = c->drained; i < c->limit; i++) {
        jobject o = (*jni)->NewLocalRef(jni, c->ref[i]);
        if (o) {
            (*jvmti)->SetTag(jvmti, o, (jlong)hp_objid_new(c->site_bits[i]));
            (*jni)->DeleteLocalRef(jni, o);
        }
        (*jni)->DeleteWeakGlobalRef(jni, c->ref[i]);
    }
    c->drained = c->limit;
}

void hp_sites_exact_survivors_drain(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&drain_lock);
    struct chunk *list = atomic_exchange_explicit(&chunks, NULL, memory_order_acquire);
    /* What the chunks hold now: the objects allocated before this drain
     * began (those appended meanwhile wait for the next collection). */
    for (struct chunk *c = list; c; c = c->next) {
        c->retire = atomic_load_explicit(&c->done, memory_order_acquire); /* then n is final */
        c->limit = atomic_load_explicit(&c->n, memory_order_acquire);
    }
    struct chunk *keep = NULL, *keep_last = NULL;
    while (list) {
        struct chunk *next = list->next;
        tag_survivors(jvmti, jni, list);
        if (list->retire) {
            free(list);
            atomic_fetch_sub(&n_chunks, 1);
        } else {
            list->next = keep;
            keep = list;
            if (keep_last == NULL) keep_last = list;
        }
        list = next;
    }
    if (keep) push_chunks(keep, keep_last);
    pthread_mutex_unlock(&drain_lock);
}

/* GarbageCollectionFinish: no JNI or JVM TI here; sem_post never blocks. */
void JNICALL hp_sites_exact_on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    sem_post(&gc_done);
}

static void JNICALL drainer(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    while (!atomic_load(&stopping)) {
        if (sem_wait(&gc_done) != 0) continue;
        if (!atomic_load(&stopping)) hp_sites_exact_survivors_drain(jvmti, jni);
    }
    atomic_store(&draining, false);
}

bool hp_sites_exact_survivors_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (sem_init(&gc_done, 0, 0) != 0 || pthread_key_create(&thread_end_key, owner_done) != 0 ||
        !hp_jvmti_ok(jvmti,
                     (*jvmti)->SetEventNotificationMode(
                         jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL),
                     "SetEventNotificationMode"))
        return false;
    atomic_store(&draining, true);
    if (!hp_agent_thread_start(jvmti, jni, "HPROF heap=all tagger", drainer, NULL)) {
        atomic_store(&draining, false);
        return false;
    }
    atomic_store(&started, true);
    return true;
}

void hp_sites_exact_survivors_stop(void)
{
    if (!atomic_load(&started)) return;
    atomic_store(&stopping, true);
    sem_post(&gc_done);
    /* A drain after a collection handles mostly dead references: far
     * below this bound, which only guards against a thread stuck in the VM. */
    const struct timespec ms = {0, 1000000};
    for (int waited = 0; atomic_load(&draining) && waited < 5000; waited++)
        nanosleep(&ms, NULL);
}
