/* The references of recorded objects that lived through a collection
 * (survivors.c moves them here), in dense chunks under one lock; swept for
 * dead ones once they grew by half since the last sweep, tagged at a dump. */
#include "agent/core/agent.h"
#include "agent/modes/heap_sites/exact/survivors.h"
#include "agent/tables/objid.h"

#include <pthread.h>
#include <stdlib.h>

struct kept {
    struct kept *next;
    uint32_t n;
    jweak ref[HP_SURVIVORS_CHUNK_ENTRIES];
    uint32_t site_bits[HP_SURVIVORS_CHUNK_ENTRIES];
};

#define MAX_KEPT_CHUNKS (HP_SURVIVORS_MAX_CHUNKS / 2)

static atomic_int n_chunks; /* threads' and kept */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under kept_lock: the chunks, oldest first (the last is being filled),
 * their entries, and how many there were after the last sweep. */
static struct kept *first, *last;
static int n_kept_chunks;
static uint64_t n_kept, n_kept_swept;

bool hp_survivors_chunk_reserve(void)
{
    if (atomic_fetch_add(&n_chunks, 1) < HP_SURVIVORS_MAX_CHUNKS) return true;
    atomic_fetch_sub(&n_chunks, 1);
    return false;
}

void hp_survivors_chunk_release(void)
{
    atomic_fetch_sub(&n_chunks, 1);
}

void hp_survivors_tag_now(jvmtiEnv *jvmti, JNIEnv *jni, jweak ref, uint32_t site_bits)
{
    jobject o = (*jni)->NewLocalRef(jni, ref);
    if (o) {
        (*jvmti)->SetTag(jvmti, o, (jlong)hp_objid_new(site_bits));
        (*jni)->DeleteLocalRef(jni, o);
    }
    if (!atomic_load_explicit(&hp.vm_dying, memory_order_relaxed))
        (*jni)->DeleteWeakGlobalRef(jni, ref);
}

static void free_kept(struct kept *c)
{
    free(c);
    n_kept_chunks--;
    hp_survivors_chunk_release();
}

/* Removes the dead references, moving the live ones forward; frees the
 * chunks left empty. */
static void sweep(JNIEnv *jni)
{
    struct kept *to = first;
    uint32_t at = 0;
    for (struct kept *from = first; from; from = from->next) {
        for (uint32_t i = 0; i < from->n; i++) {
            if ((*jni)->IsSameObject(jni, from->ref[i], NULL)) {
                (*jni)->DeleteWeakGlobalRef(jni, from->ref[i]);
                continue;
            }
            if (at == HP_SURVIVORS_CHUNK_ENTRIES) {
                to->n = at;
                to = to->next, at = 0;
            }
            to->ref[at] = from->ref[i];
            to->site_bits[at++] = from->site_bits[i];
        }
    }
    n_kept = n_kept_swept = 0;
    if (to == NULL) return;
    to->n = at;
    for (struct kept *c = to->next; c;) {
        struct kept *next = c->next;
        free_kept(c);
        c = next;
    }
    to->next = NULL;
    last = to;
    for (struct kept *c = first; c; c = c->next)
        n_kept += c->n;
    n_kept_swept = n_kept;
}

/* A sweep costs a call per kept reference: only once they grew by half. */
static bool sweep_due(void)
{
    uint64_t grown = n_kept - n_kept_swept;
    return grown >= HP_SURVIVORS_CHUNK_ENTRIES && grown >= n_kept_swept / 2;
}

/* Room for one more: false when the kept chunks are full. */
static bool room(JNIEnv *jni)
{
    if (last && last->n < HP_SURVIVORS_CHUNK_ENTRIES) return true;
    if (n_kept_chunks >= MAX_KEPT_CHUNKS) {
        if (!sweep_due()) return false;
        sweep(jni);
        return room(jni);
    }
    if (!hp_survivors_chunk_reserve()) return false;
    struct kept *c = malloc(sizeof *c);
    if (c == NULL) {
        hp_survivors_chunk_release();
        return false;
    }
    c->next = NULL;
    c->n = 0;
    n_kept_chunks++;
    if (last)
        last->next = c;
    else
        first = c;
    last = c;
    return true;
}

void hp_survivors_kept_add(jvmtiEnv *jvmti, JNIEnv *jni, const jweak *refs,
                           const uint32_t *site_bits, uint32_t n)
{
    pthread_mutex_lock(&kept_lock);
    for (uint32_t i = 0; i < n; i++) {
        if (!room(jni)) {
            hp_survivors_tag_now(jvmti, jni, refs[i], site_bits[i]);
            continue;
        }
        last->ref[last->n] = refs[i];
        last->site_bits[last->n++] = site_bits[i];
        n_kept++;
    }
    pthread_mutex_unlock(&kept_lock);
}

void hp_survivors_kept_sweep(JNIEnv *jni)
{
    pthread_mutex_lock(&kept_lock);
    if (sweep_due()) sweep(jni);
    pthread_mutex_unlock(&kept_lock);
}

void hp_survivors_kept_tag_all(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&kept_lock);
    while (first) {
        struct kept *next = first->next;
        for (uint32_t i = 0; i < first->n; i++)
            hp_survivors_tag_now(jvmti, jni, first->ref[i], first->site_bits[i]);
        free_kept(first);
        first = next;
    }
    last = NULL;
    n_kept = n_kept_swept = 0;
    pthread_mutex_unlock(&kept_lock);
}
