/* The exact route tags the objects it follows (heap=all: all; heap=sites:
 * a subset) only if they are alive at a dump. JVM TI's tag map costs a
 * locked hash insert per SetTag and, after every GC, a sweep of its dead
 * entries under its lock (the service thread's, with every environment's
 * map when any has ObjectFree on: the jdwp agent does); threads waiting for
 * that lock hold up safepoints. So the tracker's tag() records each object
 * as a JNI weak global reference with its tag's site bits in its thread's
 * chunk; after each GC (the GC event only posts a semaphore) an agent
 * thread moves the references whose objects are alive into dense kept
 * chunks and deletes the others, tagging nothing; a dump, after its forced
 * GC, tags every object still alive and deletes the references. The tag
 * map then holds only objects that lived through a dump. A weak reference
 * never keeps its object alive.
 *
 * Thread chunks: the owning thread appends and publishes the count; the
 * drainer reads up to the count it saw and frees a chunk once its owner is
 * done with it (full, or its thread ended) and every entry is handled.
 * Kept chunks are the drainer's, under drain_lock, swept again for dead
 * references once they grew by half since the last sweep. All chunks count
 * against one bound: beyond it tag() tags at once; kept chunks take at most
 * half of it, beyond which a collection's survivors are tagged at once.
 *
 * At VM death the final dump's drain tags without deleting: the references
 * go with the JVM (deleting them was most of that drain, 6 % of heap=all's
 * CPU on an allocation-bound program on JDK 25). */
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
/* 12 bytes an entry (and the JVM's 8 for the reference): at most 384 MB
 * of chunks, 32 M objects pending. Past it objects are tagged at once, each
 * a larger tag-map entry: the cap bounds nothing the fallback would not use,
 * and a young generation of more than 8 M objects (a 400 MB eden of small
 * ones) overflowed 8 M, its tagging 2x the CPU (JDK 25 Workload 4 M: 12.7
 * s against 6.0 s at 32 M; 7.7 s at 128 M). */
#define MAX_CHUNKS 32768
#define MAX_KEPT_CHUNKS (MAX_CHUNKS / 2)

struct chunk {
    struct chunk *next; /* in the list of chunks in use, or of kept ones */
    _Atomic uint32_t n; /* entries written, published by the owner */
    atomic_bool done;   /* the owner appends no more */
    /* The drainer's: entries handled, entries to handle this round, and
     * whether the owner was done when the round began. */
    uint32_t drained, limit;
    bool retire;
    jweak ref[CHUNK_ENTRIES];
    uint32_t site_bits[CHUNK_ENTRIES]; /* the tag's, hp_objid_new() */
};

static struct chunk *_Atomic chunks; /* threads' chunks in use, newest first */
static atomic_int n_chunks;          /* threads' and kept */
/* initial-exec: a plain TLS load, not a __tls_get_addr call per object. */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct chunk *mine;
static pthread_key_t thread_end_key; /* hands an ending thread's chunk over */
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
/* Threads that record objects at the same time take turns for the weak
 * reference, spinning briefly, so that the JVM's allocation mutex of JNI
 * weak references (OopStorage) is seldom contended: contended, it parks
 * the threads in the kernel and hands it over through futex wake-ups (four
 * threads of the Workload spent a quarter more CPU without turns on an AMD
 * EPYC). A thread alone (the last chunk was its own too) takes no turn. */
static atomic_bool weak_busy;
static _Atomic uintptr_t last_taker;
static _Thread_local __attribute__((tls_model("initial-exec"))) bool shared;
/* Under drain_lock: kept chunks, oldest first (the last is being filled),
 * their entries, and how many there were after the last sweep. */
static struct chunk *kept_first, *kept_last;
static int n_kept_chunks;
static uint64_t n_kept, n_kept_swept;
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

static struct chunk *alloc_chunk(void)
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
    c->next = NULL;
    atomic_init(&c->n, 0);
    atomic_init(&c->done, false);
    c->drained = c->limit = 0;
    c->retire = false;
    return c;
}

static void free_chunk(struct chunk *c)
{
    free(c);
    atomic_fetch_sub(&n_chunks, 1);
}

static struct chunk *new_chunk(void)
{
    struct chunk *c = alloc_chunk();
    if (c == NULL) return NULL;
    push_chunks(c, c);
    pthread_setspecific(thread_end_key, c);
    return c;
}

/* A thread's chunk: whether another thread took the chunk before it, that
 * is, whether others record objects now too. */
static struct chunk *take_chunk(void)
{
    mine = new_chunk();
    uintptr_t me = (uintptr_t)&mine;
    shared = atomic_exchange_explicit(&last_taker, me, memory_order_relaxed) != me;
    return mine;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* True once the turn is taken; false after 64 pauses without it: its
 * holder is off the CPU (more threads than cores, a safepoint, a
 * debugger). The reference is made anyway, the turn being no condition of
 * correctness, and the thread takes no turn till its next chunk. Yielding
 * for the turn instead, up to 64 times, cost 1.6x the CPU on an Intel Xeon
 * with 2 vCPUs (Workload, four threads), where threads mostly waited for
 * holders that had no CPU. */
static bool weak_turn(void)
{
    for (unsigned spins = 1; spins <= 64; spins++) {
        if (!atomic_load_explicit(&weak_busy, memory_order_relaxed) &&
            !atomic_exchange_explicit(&weak_busy, true, memory_order_acquire))
            return true;
        cpu_relax();
    }
    return false;
}

bool hp_sites_exact_survivors_record(JNIEnv *jni, jobject o, uint32_t site_bits)
{
    if (!atomic_load_explicit(&started, memory_order_relaxed)) return false;
    struct chunk *c = mine ? mine : take_chunk();
    if (c == NULL) return false;
    bool turn = false;
    if (shared && !(turn = weak_turn())) shared = false; /* no turns till its next chunk */
    jweak ref = (*jni)->NewWeakGlobalRef(jni, o);
    if (turn) atomic_store_explicit(&weak_busy, false, memory_order_release);
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

/* Tags the object of `ref` if it is alive, and deletes the reference
 * unless the JVM is dying. */
static void tag_now(jvmtiEnv *jvmti, JNIEnv *jni, jweak ref, uint32_t site_bits)
{
    jobject o = (*jni)->NewLocalRef(jni, ref);
    if (o) {
        (*jvmti)->SetTag(jvmti, o, (jlong)hp_objid_new(site_bits));
        (*jni)->DeleteLocalRef(jni, o);
    }
    if (!atomic_load_explicit(&hp.vm_dying, memory_order_relaxed))
        (*jni)->DeleteWeakGlobalRef(jni, ref);
}

/* ---- after a collection: keep the survivors' references ---- */

/* Removes the dead references from the kept chunks, moving the live ones
 * forward; frees the chunks left empty. */
static void sweep_kept(JNIEnv *jni)
{
    struct chunk *to = kept_first;
    uint32_t at = 0;
    for (struct chunk *from = kept_first; from; from = from->next) {
        uint32_t n = atomic_load_explicit(&from->n, memory_order_relaxed);
        for (uint32_t i = 0; i < n; i++) {
            if ((*jni)->IsSameObject(jni, from->ref[i], NULL)) {
                (*jni)->DeleteWeakGlobalRef(jni, from->ref[i]);
                continue;
            }
            if (at == CHUNK_ENTRIES) {
                atomic_store_explicit(&to->n, at, memory_order_relaxed);
                to = to->next, at = 0;
            }
            to->ref[at] = from->ref[i];
            to->site_bits[at++] = from->site_bits[i];
        }
    }
    n_kept = n_kept_swept = 0;
    if (to == NULL) return;
    atomic_store_explicit(&to->n, at, memory_order_relaxed);
    for (struct chunk *c = to->next; c;) {
        struct chunk *next = c->next;
        free_chunk(c);
        n_kept_chunks--;
        c = next;
    }
    to->next = NULL;
    kept_last = to;
    for (struct chunk *c = kept_first; c; c = c->next)
        n_kept += atomic_load_explicit(&c->n, memory_order_relaxed);
    n_kept_swept = n_kept;
}

/* A sweep costs a call per kept reference: only once they grew by half. */
static bool sweep_due(void)
{
    uint64_t grown = n_kept - n_kept_swept;
    return grown >= CHUNK_ENTRIES && grown >= n_kept_swept / 2;
}

/* Room for one more kept reference: false when the kept chunks are full. */
static bool kept_room(JNIEnv *jni)
{
    if (kept_last && atomic_load_explicit(&kept_last->n, memory_order_relaxed) < CHUNK_ENTRIES)
        return true;
    if (n_kept_chunks >= MAX_KEPT_CHUNKS) {
        if (!sweep_due()) return false;
        sweep_kept(jni);
        return kept_room(jni);
    }
    struct chunk *c = alloc_chunk();
    if (c == NULL) return false;
    n_kept_chunks++;
    if (kept_last)
        kept_last->next = c;
    else
        kept_first = c;
    kept_last = c;
    return true;
}

static void keep(jvmtiEnv *jvmti, JNIEnv *jni, jweak ref, uint32_t site_bits)
{
    if (!kept_room(jni)) {
        tag_now(jvmti, jni, ref, site_bits);
        return;
    }
    uint32_t i = atomic_load_explicit(&kept_last->n, memory_order_relaxed);
    kept_last->ref[i] = ref;
    kept_last->site_bits[i] = site_bits;
    atomic_store_explicit(&kept_last->n, i + 1, memory_order_relaxed);
    n_kept++;
}

/* What the threads' chunks hold now: the objects allocated before this
 * round began (those appended meanwhile wait for the next one). */
static struct chunk *take_chunks(void)
{
    struct chunk *list = atomic_exchange_explicit(&chunks, NULL, memory_order_acquire);
    for (struct chunk *c = list; c; c = c->next) {
        c->retire = atomic_load_explicit(&c->done, memory_order_acquire); /* then n is final */
        c->limit = atomic_load_explicit(&c->n, memory_order_acquire);
    }
    return list;
}

/* Frees the retired chunks of `list` (every entry handled) and gives the
 * others back to their owners. */
static void return_chunks(struct chunk *list)
{
    struct chunk *back = NULL, *back_last = NULL;
    while (list) {
        struct chunk *next = list->next;
        list->drained = list->limit;
        if (list->retire) {
            free_chunk(list);
        } else {
            list->next = back;
            back = list;
            if (back_last == NULL) back_last = list;
        }
        list = next;
    }
    if (back) push_chunks(back, back_last);
}

/* After a collection: references to dead objects deleted, those to live
 * ones kept untagged. JNI calls from this agent thread never hold up a
 * safepoint, and no JVM lock is held between them. */
static void compact(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&drain_lock);
    struct chunk *list = take_chunks();
    for (struct chunk *c = list; c; c = c->next)
        for (uint32_t i = c->drained; i < c->limit; i++) {
            if ((*jni)->IsSameObject(jni, c->ref[i], NULL))
                (*jni)->DeleteWeakGlobalRef(jni, c->ref[i]);
            else
                keep(jvmti, jni, c->ref[i], c->site_bits[i]);
        }
    return_chunks(list);
    if (sweep_due()) sweep_kept(jni);
    pthread_mutex_unlock(&drain_lock);
}

/* ---- at a dump: tag what is alive ---- */

void hp_sites_exact_survivors_drain(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&drain_lock);
    struct chunk *list = take_chunks();
    for (struct chunk *c = list; c; c = c->next)
        for (uint32_t i = c->drained; i < c->limit; i++)
            tag_now(jvmti, jni, c->ref[i], c->site_bits[i]);
    return_chunks(list);
    while (kept_first) {
        struct chunk *next = kept_first->next;
        uint32_t n = atomic_load_explicit(&kept_first->n, memory_order_relaxed);
        for (uint32_t i = 0; i < n; i++)
            tag_now(jvmti, jni, kept_first->ref[i], kept_first->site_bits[i]);
        free_chunk(kept_first);
        kept_first = next;
    }
    kept_last = NULL;
    n_kept_chunks = 0;
    n_kept = n_kept_swept = 0;
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
        while (sem_trywait(&gc_done) == 0) { /* one round serves collections in a row */
        }
        if (!atomic_load(&stopping)) compact(jvmti, jni);
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
    /* A round after a collection handles the references made since the
     * last one, and a sweep the kept ones: far below this bound, which only
     * guards against a thread stuck in the VM. */
    const struct timespec ms = {0, 1000000};
    for (int waited = 0; atomic_load(&draining) && waited < 5000; waited++)
        nanosleep(&ms, NULL);
}
