/* Which threads are inside one of the tracker's natives that use JVM TI,
 * for hp_sites_exact_tags_allowed(false) to wait for (`stop` disposes of
 * the JVM TI environment next; at VM death the exit dump wants the tag
 * map's lock). heap=all passes here once an object: one counter shared by
 * every thread, a locked add and a locked subtract each time, was 6 % of
 * its CPU on ReflectMH (one thread) and on Workload (four).
 *
 * Each thread has a flag on its own cache line, set and cleared with plain
 * stores. The closing thread publishes the stop, makes every running thread
 * of the process pass a full memory barrier (membarrier's private expedited
 * command), then waits for the flags to clear: a thread either saw the stop
 * or its flag is seen (the asymmetric form of Dekker's protocol). Where
 * membarrier is missing (Linux before 4.14, a seccomp filter), each entry
 * pays a full fence instead. Slots of ended threads are reused, never
 * freed. */
#include "agent/core/agent.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct slot {
    _Alignas(64) atomic_int inside;
    atomic_bool used;
    struct slot *next; /* immutable once pushed */
};

static struct slot *_Atomic slots;
static HP_TLS struct slot *mine;
static pthread_key_t slot_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool key_made, asymmetric;
static atomic_bool stopped;

static long membarrier(int cmd)
{
    return syscall(__NR_membarrier, cmd, 0, 0);
}

static void slot_ends(void *p)
{
    atomic_store(&((struct slot *)p)->used, false);
    mine = NULL;
}

static void init_once(void)
{
    key_made = pthread_key_create(&slot_key, slot_ends) == 0;
    asymmetric = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/* The calling thread's slot: NULL only if memory is short. */
static struct slot *my_slot(void)
{
    if (mine) return mine;
    pthread_once(&once, init_once);
    if (!key_made) return NULL;
    struct slot *s = atomic_load(&slots);
    for (; s; s = s->next)
        if (!atomic_load_explicit(&s->used, memory_order_relaxed) &&
            !atomic_exchange(&s->used, true))
            break;
    if (s == NULL) {
        s = aligned_alloc(64, sizeof *s);
        if (s == NULL) return NULL;
        atomic_init(&s->inside, 0);
        atomic_init(&s->used, true);
        s->next = atomic_load(&slots);
        while (!atomic_compare_exchange_weak(&slots, &s->next, s)) {
        }
    }
    pthread_setspecific(slot_key, s);
    mine = s;
    return s;
}

bool hp_sites_exact_native_enter(void)
{
    struct slot *s = my_slot();
    if (s == NULL) return false;
    atomic_store_explicit(&s->inside, 1, memory_order_relaxed);
    if (asymmetric)
        atomic_signal_fence(memory_order_seq_cst); /* membarrier orders it for the closer */
    else
        atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&stopped, memory_order_relaxed)) return true;
    atomic_store_explicit(&s->inside, 0, memory_order_release);
    return false;
}

void hp_sites_exact_native_leave(void)
{
    atomic_store_explicit(&mine->inside, 0, memory_order_release);
}

void hp_sites_exact_tags_allowed(bool on)
{
    pthread_once(&once, init_once);
    atomic_store(&stopped, !on);
    if (on) return;
    const struct timespec ms = {0, 1000000};
    if (asymmetric) /* registered, it fails only for want of memory: try again */
        for (int tries = 0; membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 && tries < 1000;
             tries++)
            nanosleep(&ms, NULL);
    atomic_thread_fence(memory_order_seq_cst);
    for (struct slot *s = atomic_load(&slots); s; s = s->next)
        while (atomic_load_explicit(&s->inside, memory_order_acquire))
            nanosleep(&ms, NULL);
}
