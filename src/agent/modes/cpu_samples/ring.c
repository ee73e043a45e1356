/* Vyukov's bounded queue: each slot's sequence number says whose turn it is,
 * so producers claim slots with one CAS and the consumer never blocks them. */
#include "agent/modes/cpu_samples/ring.h"

#include <stdlib.h>

/* Memory for the whole queue; the slot count follows from the depth. */
#define RING_BYTES (4u << 20)
#define RING_MIN_SLOTS 256u
#define RING_MAX_SLOTS 16384u

static unsigned char *slots;
static size_t slot_size, mask;
static atomic_size_t head; /* next slot to claim */
static size_t tail;        /* next slot to consume (one consumer) */
static atomic_uint_fast64_t dropped;

static struct hp_sample *slot(size_t pos)
{
    return (struct hp_sample *)(slots + (pos & mask) * slot_size);
}

bool hp_ring_init(int depth)
{
    size_t align = _Alignof(struct hp_sample);
    slot_size =
        sizeof(struct hp_sample) + sizeof(struct hp_agct_frame) * (size_t)(depth > 0 ? depth : 1);
    slot_size = (slot_size + align - 1) / align * align;
    size_t n = RING_MAX_SLOTS;
    while (n > RING_MIN_SLOTS && n * slot_size > RING_BYTES)
        n /= 2;
    /* A new recording after `stop`: no handler has run since the sampler
     * was uninstalled, so the old queue is free. */
    free(slots);
    slots = calloc(n, slot_size);
    if (slots == NULL) return false;
    mask = n - 1;
    for (size_t i = 0; i < n; i++)
        atomic_init(&slot(i)->seq, i);
    atomic_init(&head, 0);
    tail = 0;
    atomic_store(&dropped, 0);
    return true;
}

struct hp_sample *hp_ring_claim(void)
{
    if (slots == NULL) return NULL;
    size_t pos = atomic_load_explicit(&head, memory_order_relaxed);
    for (;;) {
        struct hp_sample *s = slot(pos);
        size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq == pos) {
            if (atomic_compare_exchange_weak_explicit(&head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                return s;
        } else if (seq < pos) { /* the consumer has not freed it yet: full */
            atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
            return NULL;
        } else {
            pos = atomic_load_explicit(&head, memory_order_relaxed);
        }
    }
}

void hp_ring_publish(struct hp_sample *s)
{
    size_t pos = atomic_load_explicit(&s->seq, memory_order_relaxed);
    atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
}

struct hp_sample *hp_ring_peek(void)
{
    if (slots == NULL) return NULL;
    struct hp_sample *s = slot(tail);
    return atomic_load_explicit(&s->seq, memory_order_acquire) == tail + 1 ? s : NULL;
}

void hp_ring_release(struct hp_sample *s)
{
    atomic_store_explicit(&s->seq, tail + mask + 1, memory_order_release);
    tail++;
}

uint64_t hp_ring_dropped(void)
{
    return atomic_load(&dropped);
}
