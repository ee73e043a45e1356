/*
 * Minimal JVM TI agent: the floor of tagging only the objects that survive a
 * GC. A SampledObjectAlloc event for every allocation (interval 0) records
 * the object as a JNI weak global reference with its would-be tag in the
 * allocating thread's buffer; full buffers go to a shared list. After each
 * GC (GarbageCollectionFinish only posts a semaphore: no JNI or JVM TI there)
 * an agent thread takes the list, tags each object whose reference is still
 * alive and deletes every reference. Against tag-floor (sampledalloc.c
 * "0,tag": SetTag per allocation) this shows what JVM TI's tag map costs
 * for objects that die young. Prints the counts at VM death.
 *
 * With an option the objects come from Java instead, one JNI call each
 * (WeakFloor.record, bench/floor/WeakFloor.java), as heap=all's tracker
 * hands them over, and no event is on: "jni" records as above, "turns"
 * too, threads taking turns (spin, then yield) for the weak reference as
 * heap=all's do, "own" too, each thread handling its own full buffers at
 * its first recording after a GC (as heap=all's threads do: the JVM's
 * storage of weak references then stays in one CPU's cache), "call"
 * returns at once (the JNI transition alone), "tag" tags each object (JVM
 * TI's tag map).
 */
#include <jvmti.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096

struct chunk {
    struct chunk *next;
    int n;
    jweak ref[CHUNK];
    jlong tag[CHUNK];
};

static jvmtiEnv *jvmti;
static struct chunk *_Atomic full; /* full buffers, newest first */
static __thread struct chunk *mine;
static pthread_key_t handover; /* a thread's partial buffer at its end */
static sem_t gc_done;
static unsigned long long recorded, tagged;
static char route; /* 0: the event; 'j'ni, t'u'rns, 'o'wn, 'c'all or 't'ag: WeakFloor.record */
static atomic_uint gc_count;          /* "own": collections finished */
static __thread unsigned my_gc_count; /* "own": the count at the thread's last look */
static __thread struct chunk *own;    /* "own": the thread's full buffers */
static int busy;                      /* "turns": a thread makes its weak reference */

static void push_full(struct chunk *c)
{
    c->next = __atomic_load_n(&full, __ATOMIC_RELAXED);
    while (
        !__atomic_compare_exchange_n(&full, &c->next, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
}

static void thread_ends(void *c)
{
    /* Java code may still run on this thread in a later key destructor (a
     * callback attaching it again): it starts a new buffer. */
    mine = NULL;
    if (c) push_full(c);
    while (own) {
        struct chunk *next = own->next;
        push_full(own);
        own = next;
    }
}

static void drain(JNIEnv *jni, struct chunk *c);

static void record(JNIEnv *jni, jobject object, jlong size)
{
    if (route == 'o' && my_gc_count != atomic_load_explicit(&gc_count, memory_order_relaxed)) {
        my_gc_count = atomic_load(&gc_count);
        drain(jni, own);
        own = NULL;
    }
    if (mine == NULL) {
        mine = calloc(1, sizeof *mine);
        if (mine == NULL) return;
        pthread_setspecific(handover, mine);
    }
    for (unsigned spins = 1; route == 'u' && __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE);
         spins++)
        if (spins % 64 == 0) sched_yield();
    jweak w = (*jni)->NewWeakGlobalRef(jni, object);
    if (route == 'u') __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
    if (w == NULL) return;
    mine->ref[mine->n] = w;
    mine->tag[mine->n] = size;
    if (++mine->n == CHUNK) {
        __atomic_fetch_add(&recorded, CHUNK, __ATOMIC_RELAXED);
        if (route == 'o') {
            mine->next = own;
            own = mine;
        } else {
            push_full(mine);
        }
        mine = NULL;
        pthread_setspecific(handover, NULL);
    }
}

static void JNICALL on_sample(jvmtiEnv *env, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size)
{
    (void)env, (void)thread, (void)klass;
    record(jni, object, size);
}

JNIEXPORT void JNICALL Java_WeakFloor_record(JNIEnv *jni, jclass k, jobject o)
{
    (void)k;
    if (route == 'j' || route == 'u' || route == 'o')
        record(jni, o, 1);
    else if (route == 't')
        (*jvmti)->SetTag(jvmti, o, 1);
}

static void JNICALL on_gc_finish(jvmtiEnv *env)
{
    (void)env;
    atomic_fetch_add(&gc_count, 1);
    sem_post(&gc_done);
}

static void drain(JNIEnv *jni, struct chunk *c)
{
    while (c) {
        for (int i = 0; i < c->n; i++) {
            jobject o = (*jni)->NewLocalRef(jni, c->ref[i]);
            if (o) {
                (*jvmti)->SetTag(jvmti, o, c->tag[i]);
                (*jni)->DeleteLocalRef(jni, o);
                __atomic_fetch_add(&tagged, 1, __ATOMIC_RELAXED);
            }
            (*jni)->DeleteWeakGlobalRef(jni, c->ref[i]);
        }
        struct chunk *next = c->next;
        free(c);
        c = next;
    }
}

static void JNICALL drainer(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)env, (void)arg;
    for (;;) {
        while (sem_wait(&gc_done) != 0) {
        }
        drain(jni, __atomic_exchange_n(&full, NULL, __ATOMIC_ACQUIRE));
    }
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread unused)
{
    (void)unused;
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = tc ? (*jni)->GetMethodID(jni, tc, "<init>", "()V") : NULL;
    jthread t = init ? (*jni)->NewObject(jni, tc, init) : NULL;
    if (t == NULL || (*env)->RunAgentThread(env, t, drainer, NULL, JVMTI_THREAD_MAX_PRIORITY) !=
                         JVMTI_ERROR_NONE)
        fprintf(stderr, "weakfloor: no drainer thread\n");
}

static void JNICALL on_death(jvmtiEnv *env, JNIEnv *jni)
{
    (void)env, (void)jni;
    fprintf(stderr, "weakfloor: %llu recorded (in full buffers), %llu tagged\n",
            __atomic_load_n(&recorded, __ATOMIC_RELAXED),
            __atomic_load_n(&tagged, __ATOMIC_RELAXED));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    route = options == NULL ? 0 : strcmp(options, "turns") == 0 ? 'u' : options[0];
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    if (sem_init(&gc_done, 0, 0) != 0 || pthread_key_create(&handover, thread_ends) != 0)
        return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_generate_garbage_collection_events = 1;
    caps.can_tag_objects = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = on_sample;
    cb.GarbageCollectionFinish = on_gc_finish;
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_death;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetHeapSamplingInterval(jvmti, 0) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    jvmtiEvent events[] = {JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
                           JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH};
    for (size_t i = route ? 1 : 0; i < sizeof events / sizeof events[0]; i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) !=
            JVMTI_ERROR_NONE)
            return JNI_ERR;
    return JNI_OK;
}
