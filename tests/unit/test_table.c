/* The generic table: dense indices, stable info pointers, concurrency. */
#include "agent/tables/table.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

struct info {
    uint32_t value;
};

static void init_info(void *info, const void *key, size_t len, void *ctx)
{
    (void)ctx;
    uint32_t v = 0;
    memcpy(&v, key, len < sizeof v ? len : sizeof v);
    ((struct info *)info)->value = v * 3;
}

static void test_intern_find(void **state)
{
    (void)state;
    struct hp_table *t = hp_table_new(sizeof(struct info));
    assert_non_null(t);
    const uint32_t n = 100000; /* crosses several chunks and rehashes */
    struct info *first = NULL;
    for (uint32_t k = 0; k < n; k++) {
        int added = 0;
        uint32_t idx = hp_table_intern(t, &k, sizeof k, init_info, NULL, &added);
        assert_int_equal(idx, k + 1);
        assert_true(added);
        if (k == 0) first = hp_table_info(t, 1);
    }
    assert_ptr_equal(first, hp_table_info(t, 1)); /* growth never moves entries */
    for (uint32_t k = 0; k < n; k += 997) {
        int added = 1;
        assert_int_equal(hp_table_intern(t, &k, sizeof k, init_info, NULL, &added), k + 1);
        assert_false(added);
        assert_int_equal(hp_table_find(t, &k, sizeof k), k + 1);
        assert_int_equal(((struct info *)hp_table_info(t, k + 1))->value, k * 3);
        size_t len = 0;
        const void *key = hp_table_key(t, k + 1, &len);
        assert_int_equal(len, sizeof k);
        assert_memory_equal(key, &k, sizeof k);
    }
    uint32_t missing = n + 5;
    assert_int_equal(hp_table_find(t, &missing, sizeof missing), 0);
    assert_null(hp_table_info(t, 0));
    assert_null(hp_table_info(t, n + 1));
    assert_int_equal(hp_table_count(t), n);
    hp_table_free(t);
}

static void test_variable_keys(void **state)
{
    (void)state;
    struct hp_table *t = hp_table_new(0);
    assert_int_equal(hp_table_intern(t, "", 0, NULL, NULL, NULL), 1);
    assert_int_equal(hp_table_intern(t, "ab", 2, NULL, NULL, NULL), 2);
    assert_int_equal(hp_table_intern(t, "abc", 3, NULL, NULL, NULL), 3);
    assert_int_equal(hp_table_intern(t, "ab", 2, NULL, NULL, NULL), 2);
    assert_int_equal(hp_table_find(t, "", 0), 1);
    hp_table_free(t);
}

static struct hp_table *shared;

static void *worker(void *arg)
{
    uint32_t base = (uint32_t)(uintptr_t)arg;
    for (uint32_t k = 0; k < 20000; k++) {
        uint32_t key = (k * 7 + base) % 30000; /* overlapping key sets */
        if (hp_table_intern(shared, &key, sizeof key, init_info, NULL, NULL) == 0) return arg;
    }
    return NULL;
}

static void test_concurrent(void **state)
{
    (void)state;
    shared = hp_table_new(sizeof(struct info));
    pthread_t th[4];
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, (void *)(i * 5000));
    for (int i = 0; i < 4; i++) {
        void *rc;
        pthread_join(th[i], &rc);
        assert_null(rc);
    }
    /* every key appears once, whatever the interleaving */
    uint32_t n = hp_table_count(shared);
    for (uint32_t idx = 1; idx <= n; idx++) {
        const uint32_t *key = hp_table_key(shared, idx, NULL);
        assert_int_equal(hp_table_find(shared, key, sizeof *key), idx);
    }
    assert_true(n <= 30000);
    hp_table_free(shared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern_find),
        cmocka_unit_test(test_variable_keys),
        cmocka_unit_test(test_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
