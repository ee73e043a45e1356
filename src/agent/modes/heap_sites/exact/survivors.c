/* The exact route tags the objects it follows (heap=all: all; heap=sites:
 * a subset) only if they are alive at a dump. JVM TI's tag map costs a
 * locked hash insert per SetTag and, after every GC, a sweep of its dead
 * entries under its lock (the service thread's, with every environment's
 * map when any has ObjectFree on: the jdwp agent does); threads waiting for
 * that lock hold up safepoints. So the tracker's tag() records each object
 * as a JNI weak global reference with its tag's site bits in its thread's
 * chunk. After each collection the references are handled: those of dead
 * objects deleted, the others moved to the dense kept chunks (kept.c),
 * nothing tagged; a dump, after its forced GC, tags every object still
 * alive and deletes the references. The tag map then holds only objects
 * that lived through a dump. A weak reference never keeps its object alive.
 *
 * Who handles a chunk: its own thread, at its first recordings after a
 * collection, one chunk a recording (newest first; the current one at
 * once, before it holds objects made since). Handled by an agent thread,
 * the JVM's blocks of weak references went back and forth between the
 * allocating thread's CPU and the agent thread's: heap=all took 2x the CPU
 * on ReflectMH (one thread allocating) on a 2-vCPU Intel Xeon, and as
 * much less with both threads pinned to one CPU. The agent thread (the
 * tagger) still handles the chunks of threads that ended and of threads
 * that have not handled their own for two collections (idle ones).
 * A thread holds a chunk ("busy", under list_lock) while it handles it;
 * the owner appends past the count others read, and publishes the count.
 * A chunk is freed once its owner is done with it (full, or its thread
 * ended) and every entry is handled.
 *
 * At VM death the final dump's drain tags without deleting: the references
 * go with the JVM (deleting them was most of that drain, 6 % of heap=all's
 * CPU on an allocation-bound program on JDK 25). */
#include "agent/modes/heap_sites/exact/survivors.h"
#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

struct owner;

struct chunk {
    /* Under list_lock: */
    struct chunk *prev, *next;         /* every thread's chunks */
    struct chunk *own_prev, *own_next; /* its owner's, newest first */
    struct owner *owner;               /* NULL once its thread ended */
    bool done;                         /* its owner appends no more */
    bool busy;                         /* a thread handles it */
    bool dumping;                      /* that thread is a dump's */
    unsigned handled_at;               /* collections counted when last handled */
    /* The busy holder's: entries handled; the tagger's or a dump's list. */
    uint32_t drained;
    struct chunk *work;
    _Atomic uint32_t n; /* entries written, published by the owner */
    jweak ref[HP_SURVIVORS_CHUNK_ENTRIES];
    uint32_t site_bits[HP_SURVIVORS_CHUNK_ENTRIES]; /* the tag's, hp_objid_new() */
};

struct owner {
    struct chunk *head; /* under list_lock */
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *all;                                     /* under list_lock */
static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER; /* one drain at a time */
static atomic_uint gc_count;                                  /* collections finished */
static HP_TLS struct chunk *mine;                             /* the chunk being appended to */
static HP_TLS struct owner *me;
static HP_TLS unsigned my_gc_count;  /* the collections counted at its last look */
static HP_TLS bool my_due;           /* it may have chunks to handle */
static pthread_key_t thread_end_key; /* hands an ending thread's chunks over */
/* Threads that record objects at the same time take turns for the weak
 * reference, spinning briefly, so that the JVM's allocation mutex of JNI
 * weak references (OopStorage) is seldom contended: contended, it parks
 * the threads in the kernel and hands it over through futex wake-ups (four
 * threads of the Workload spent a quarter more CPU without turns on an AMD
 * EPYC). A thread alone (the last chunk was its own too) takes no turn. */
static atomic_bool weak_busy;
static _Atomic uintptr_t last_taker;
static HP_TLS bool shared;
static sem_t gc_done;
static atomic_bool started, stopping;
static atomic_bool draining;   /* the tagger thread runs */
static atomic_bool dump_waits; /* the tagger gives its chunks back unhandled */

/* ---- the lists (under list_lock) ---- */

static void link_chunk(struct chunk *c, struct owner *o)
{
    c->prev = NULL;
    c->next = all;
    if (all) all->prev = c;
    all = c;
    c->owner = o;
    c->own_prev = NULL;
    c->own_next = o->head;
    if (o->head) o->head->own_prev = c;
    o->head = c;
}

static void unlink_free(struct chunk *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        all = c->next;
    if (c->next) c->next->prev = c->prev;
    if (c->owner) {
        if (c->own_prev)
            c->own_prev->own_next = c->own_next;
        else
            c->owner->head = c->own_next;
        if (c->own_next) c->own_next->own_prev = c->own_prev;
    }
    free(c);
    hp_survivors_chunk_release();
}

static bool claim(struct chunk *c)
{
    if (c->busy) return false;
    c->busy = true;
    return true;
}

/* After its holder handled it: freed once no entry can come. */
static void give_back(struct chunk *c, unsigned count)
{
    c->busy = c->dumping = false;
    c->handled_at = count;
    if (c->done && c->drained == atomic_load_explicit(&c->n, memory_order_relaxed)) unlink_free(c);
}

/* pthread key destructor, in the ending thread: its chunks are done. */
static void owner_ends(void *p)
{
    struct owner *o = p;
    pthread_mutex_lock(&list_lock);
    for (struct chunk *c = o->head; c; c = c->own_next) {
        c->owner = NULL;
        c->done = true;
    }
    pthread_mutex_unlock(&list_lock);
    free(o);
    me = NULL;
    mine = NULL;
    my_due = false;
}

/* ---- handling a chunk's entries ---- */

/* Deletes the references of dead objects among the entries not handled
 * yet and moves the others to the kept ones; the caller holds c. */
static void handle(jvmtiEnv *jvmti, JNIEnv *jni, struct chunk *c)
{
    uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
    uint32_t from = c->drained, alive = from;
    for (uint32_t i = from; i < n; i++) {
        if ((*jni)->IsSameObject(jni, c->ref[i], NULL)) {
            (*jni)->DeleteWeakGlobalRef(jni, c->ref[i]);
            continue;
        }
        c->ref[alive] = c->ref[i];
        c->site_bits[alive++] = c->site_bits[i];
    }
    if (alive > from)
        hp_survivors_kept_add(jvmti, jni, c->ref + from, c->site_bits + from, alive - from);
    c->drained = n;
}

/* The owner's next chunk not handled since the last collection, newest
 * first: the current one, then the full ones, one a recording. */
static void handle_due(JNIEnv *jni)
{
    struct chunk *c = NULL;
    if (me == NULL) {
        my_due = false;
        return;
    }
    pthread_mutex_lock(&list_lock);
    for (struct chunk *k = me->head; k && c == NULL; k = k->own_next)
        if (k->handled_at != my_gc_count && claim(k)) c = k;
    if (c == NULL) my_due = false;
    pthread_mutex_unlock(&list_lock);
    if (c == NULL) return;
    handle(hp.jvmti, jni, c);
    pthread_mutex_lock(&list_lock);
    give_back(c, my_gc_count);
    pthread_mutex_unlock(&list_lock);
}

/* ---- recording ---- */

static struct chunk *take_chunk(void)
{
    if (me == NULL) {
        me = calloc(1, sizeof *me);
        if (me == NULL) return NULL;
        pthread_setspecific(thread_end_key, me);
    }
    if (!hp_survivors_chunk_reserve()) return NULL;
    struct chunk *c = malloc(sizeof *c);
    if (c == NULL) {
        hp_survivors_chunk_release();
        return NULL;
    }
    c->done = c->busy = c->dumping = false;
    c->handled_at = my_gc_count;
    c->drained = 0;
    c->work = NULL;
    atomic_init(&c->n, 0);
    pthread_mutex_lock(&list_lock);
    link_chunk(c, me);
    pthread_mutex_unlock(&list_lock);
    mine = c;
    /* Whether another thread took a chunk before it: others record now too. */
    uintptr_t id = (uintptr_t)&mine;
    shared = atomic_exchange_explicit(&last_taker, id, memory_order_relaxed) != id;
    return c;
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
    unsigned count = atomic_load_explicit(&gc_count, memory_order_relaxed);
    if (count != my_gc_count) {
        my_gc_count = count;
        my_due = me != NULL;
    }
    if (my_due) handle_due(jni);
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
    if (i + 1 == HP_SURVIVORS_CHUNK_ENTRIES) {
        pthread_mutex_lock(&list_lock);
        c->done = true;
        pthread_mutex_unlock(&list_lock);
        mine = NULL;
    }
    return true;
}

/* ---- the tagger: after each collection, what owners leave ---- */

static void tagger_round(jvmtiEnv *jvmti, JNIEnv *jni)
{
    unsigned count = atomic_load(&gc_count);
    struct chunk *work = NULL;
    pthread_mutex_lock(&list_lock);
    for (struct chunk *c = all; c; c = c->next)
        if ((c->owner == NULL || count - c->handled_at >= 2) && claim(c)) {
            c->work = work;
            work = c;
        }
    pthread_mutex_unlock(&list_lock);
    /* Each given back once handled: a dump waits for no more than one. */
    while (work) {
        struct chunk *next = work->work;
        if (!atomic_load(&dump_waits)) handle(jvmti, jni, work);
        pthread_mutex_lock(&list_lock);
        give_back(work, count);
        pthread_mutex_unlock(&list_lock);
        work = next;
    }
    hp_survivors_kept_sweep(jni);
}

/* ---- at a dump: tag what is alive ---- */

/* Takes every chunk no other thread holds; true if some were held. */
static bool claim_for_dump(struct chunk **work)
{
    bool held = false;
    pthread_mutex_lock(&list_lock);
    for (struct chunk *c = all; c; c = c->next) {
        if (c->dumping) continue;
        if (claim(c)) {
            c->dumping = true;
            c->work = *work;
            *work = c;
        } else {
            held = true;
        }
    }
    pthread_mutex_unlock(&list_lock);
    return held;
}

void hp_sites_exact_survivors_drain(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&dump_lock);
    atomic_store(&dump_waits, true);
    struct chunk *work = NULL;
    /* A holder handles one chunk (at most 1,024 references); the wait is
     * bounded all the same (a holder suspended by a debugger inside a JNI
     * call): the entries of a chunk still held are left untagged, counted
     * by estimate like the objects made after the dump's collection. */
    const struct timespec wait = {0, 100000};
    for (int tries = 0; claim_for_dump(&work) && tries < 20000; tries++)
        nanosleep(&wait, NULL);
    atomic_store(&dump_waits, false);
    unsigned count = atomic_load(&gc_count);
    for (struct chunk *c = work; c; c = c->work) {
        uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
        for (uint32_t i = c->drained; i < n; i++)
            hp_survivors_tag_now(jvmti, jni, c->ref[i], c->site_bits[i]);
        c->drained = n;
    }
    pthread_mutex_lock(&list_lock);
    while (work) {
        struct chunk *next = work->work;
        give_back(work, count);
        work = next;
    }
    pthread_mutex_unlock(&list_lock);
    hp_survivors_kept_tag_all(jvmti, jni);
    pthread_mutex_unlock(&dump_lock);
}

/* GarbageCollectionFinish: no JNI or JVM TI here; sem_post never blocks. */
void JNICALL hp_sites_exact_on_gc_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    atomic_fetch_add(&gc_count, 1);
    sem_post(&gc_done);
}

static void JNICALL tagger(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    while (!atomic_load(&stopping)) {
        if (sem_wait(&gc_done) != 0) continue;
        while (sem_trywait(&gc_done) == 0) { /* one round serves collections in a row */
        }
        if (!atomic_load(&stopping)) tagger_round(jvmti, jni);
    }
    atomic_store(&draining, false);
}

bool hp_sites_exact_survivors_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    if (sem_init(&gc_done, 0, 0) != 0 || pthread_key_create(&thread_end_key, owner_ends) != 0 ||
        !hp_jvmti_ok(jvmti,
                     (*jvmti)->SetEventNotificationMode(
                         jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL),
                     "SetEventNotificationMode"))
        return false;
    atomic_store(&draining, true);
    if (!hp_agent_thread_start(jvmti, jni, "HPROF heap=all tagger", tagger, NULL)) {
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
    /* A round after a collection handles what the owners left, and a sweep
     * the kept ones: far below this bound, which only guards against a
     * thread stuck in the VM. */
    const struct timespec ms = {0, 1000000};
    for (int waited = 0; atomic_load(&draining) && waited < 5000; waited++)
        nanosleep(&ms, NULL);
}
