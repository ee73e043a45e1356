/* native_gate.c: once hp_sites_exact_tags_allowed(false) returns, no thread
 * is inside a native and none enters until tags are allowed again. Four
 * threads enter and leave in a loop while the main thread closes the gate,
 * fifty times over. */
#include "agent/modes/heap_sites/exact/exact.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#define THREADS 4

static atomic_int inside;   /* threads between a successful enter and their leave */
static atomic_long entries; /* successful enters */

static void *enter_until_closed(void *arg)
{
    (void)arg;
    while (hp_sites_exact_native_enter()) {
        atomic_fetch_add(&inside, 1);
        atomic_fetch_add(&entries, 1);
        for (volatile int spin = 0; spin < 100; spin++) {
        }
        atomic_fetch_sub(&inside, 1);
        hp_sites_exact_native_leave();
    }
    return NULL;
}

static void test_closing_waits_for_every_thread_inside(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        hp_sites_exact_tags_allowed(true);
        atomic_store(&entries, 0);
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++)
            assert_int_equal(pthread_create(&t[i], NULL, enter_until_closed, NULL), 0);
        while (atomic_load(&entries) < 1000) {
            const struct timespec us = {0, 1000};
            nanosleep(&us, NULL);
        }
        hp_sites_exact_tags_allowed(false);
        assert_int_equal(atomic_load(&inside), 0);
        assert_false(hp_sites_exact_native_enter());
        for (int i = 0; i < THREADS; i++)
            assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(atomic_load(&inside), 0);
    }
    hp_sites_exact_tags_allowed(true);
    assert_true(hp_sites_exact_native_enter());
    hp_sites_exact_native_leave();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closing_waits_for_every_thread_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
