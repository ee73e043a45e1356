/* The sample queue under concurrent producers: every published sample is
 * consumed exactly once, in claim order per producer, and a full queue
 * drops (and counts) instead of blocking or overwriting. */
#include "agent/modes/cpu_samples/ring.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#define PRODUCERS 4
#define PER_PRODUCER 200000
#define DEPTH 3

static atomic_int done;
static atomic_uint_fast64_t published;

static void *produce(void *arg)
{
    uint32_t id = (uint32_t)(uintptr_t)arg;
    for (jint i = 0; i < PER_PRODUCER; i++) {
        struct hp_sample *s = hp_ring_claim();
        if (s == NULL) continue; /* full: dropped */
        s->thread_serial = id;
        s->n_frames = i;
        s->frames[DEPTH - 1].lineno = i ^ (jint)id;
        hp_ring_publish(s);
        atomic_fetch_add(&published, 1);
    }
    atomic_fetch_add(&done, 1);
    return NULL;
}

static void test_concurrent_producers(void **state)
{
    (void)state;
    assert_true(hp_ring_init(DEPTH));
    pthread_t t[PRODUCERS];
    for (uintptr_t i = 0; i < PRODUCERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, produce, (void *)(i + 1)), 0);
    jint last[PRODUCERS + 1];
    for (int i = 0; i <= PRODUCERS; i++)
        last[i] = -1;
    uint64_t consumed = 0;
    for (;;) {
        int finished = atomic_load(&done) == PRODUCERS;
        struct hp_sample *s;
        while ((s = hp_ring_peek()) != NULL) {
            assert_true(s->thread_serial >= 1 && s->thread_serial <= PRODUCERS);
            /* One producer's samples come out in the order it took them. */
            assert_true(s->n_frames > last[s->thread_serial]);
            last[s->thread_serial] = s->n_frames;
            assert_int_equal(s->frames[DEPTH - 1].lineno, s->n_frames ^ (jint)s->thread_serial);
            hp_ring_release(s);
            consumed++;
        }
        if (finished) break;
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(consumed, atomic_load(&published));
    assert_int_equal(consumed + hp_ring_dropped(), (uint64_t)PRODUCERS * PER_PRODUCER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_concurrent_producers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
