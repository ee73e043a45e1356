/* Unit tests of the sampled-mode estimator (modes/heap_sites/weight.h) and
 * the site table (site.h). No JVM needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/weight.h"
#include "agent/tables/trace.h"

/* Weight of one sample as a plain ratio, for readable expectations. */
static double ratio(uint64_t size, uint64_t interval)
{
    return (double)hp_sites_weight(size, interval) / HP_SITE_ONE;
}

static void exact_mode_counts_one(void **state)
{
    (void)state;
    assert_int_equal(hp_sites_weight(24, 0), HP_SITE_ONE);
    assert_int_equal(hp_sites_weight(1u << 30, 0), HP_SITE_ONE);
    assert_int_equal(hp_sites_weight_bytes(24, HP_SITE_ONE), 24);
    assert_int_equal(hp_sites_objs(5 * (uint64_t)HP_SITE_ONE), 5);
}

static void small_objects_weigh_interval_over_size(void **state)
{
    (void)state;
    /* p = 1 - exp(-s/I) ~ s/I - (s/I)^2/2, so 1/p ~ I/s + 1/2. */
    double w = ratio(24, 524288);
    assert_true(w > 524288.0 / 24 + 0.49 && w < 524288.0 / 24 + 0.51);
    /* bytes represented: about one interval */
    uint64_t b = hp_sites_weight_bytes(24, hp_sites_weight(24, 524288));
    assert_true(b >= 524288 && b <= 524288 + 24);
}

static void size_equal_to_interval(void **state)
{
    (void)state;
    /* 1 / (1 - e^-1) = 1.5819767... */
    double w = ratio(4096, 4096);
    assert_true(w > 1.58197 && w < 1.58198);
}

static void huge_objects_are_always_sampled(void **state)
{
    (void)state;
    assert_int_equal(hp_sites_weight(100u << 20, 4096), HP_SITE_ONE);
}

static void sites_fit_tags(void **state)
{
    (void)state;
    assert_int_equal(hp_site_intern(100001, 300001), HP_SITE_NONE); /* no table yet */
    assert_int_equal(hp_site_trace_serial(1), HP_TRACE_EMPTY);
    hp_site_table_init();
    uint32_t a = hp_site_intern(100001, 300001);
    uint32_t b = hp_site_intern(100002, 300001);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    assert_int_equal(hp_site_intern(100001, 300001), a);
    assert_int_equal(hp_site_class_serial(b), 100002);
    assert_int_equal(hp_site_trace_serial(b), 300001);
    hp_objid_t tag = hp_objid_new(b);
    assert_int_equal(hp_site_of_tag(tag), b);
    assert_int_equal(hp_site_class_serial(HP_SITE_NONE), 0);
    assert_null(hp_site_get(3));
    assert_int_equal(hp_site_count(), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_mode_counts_one),
        cmocka_unit_test(small_objects_weigh_interval_over_size),
        cmocka_unit_test(size_equal_to_interval),
        cmocka_unit_test(huge_objects_are_always_sampled),
        cmocka_unit_test(sites_fit_tags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
