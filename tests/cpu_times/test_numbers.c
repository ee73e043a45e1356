/* Unit test of the instrument component's numbering: a class rewritten
 * again (a later attach retransforms it) keeps its class and method
 * numbers, so attaching again and again numbers nothing new. Boot-loader
 * classes only: no JVM is needed. */
#include "agent/instrument/numbers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void retransformed_class_keeps_its_numbers(void **state)
{
    (void)state;
    uint32_t cnum = hp_num_class(NULL, "a/Kept", NULL);
    assert_int_not_equal(cnum, 0);
    int mnums[2] = {hp_num_method(cnum, "run", "()V"), hp_num_method(cnum, "get", "(I)I")};
    hp_num_class_methods(cnum, mnums, 2);

    assert_int_equal(hp_num_class_again(NULL, "a/Kept", NULL), cnum);
    assert_int_equal(hp_num_method_again(cnum, "get", "(I)I"), mnums[1]);
    assert_int_equal(hp_num_method_again(cnum, "run", "()V"), mnums[0]);
    int added = hp_num_method_again(cnum, "run", "(J)V"); /* not numbered before */
    assert_true(added > mnums[1]);
    struct hp_num_names names;
    assert_true(hp_num_names(added, &names));
    assert_string_equal(names.class_name, "a/Kept");
    assert_string_equal(names.desc, "(J)V");
}

static void class_never_numbered_is_new(void **state)
{
    (void)state;
    assert_int_equal(hp_num_class_again(NULL, "a/Never", NULL), 0);
    hp_num_class(NULL, "a/Other", NULL);
    assert_int_equal(hp_num_class_again(NULL, "a/Never", NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(retransformed_class_keeps_its_numbers),
        cmocka_unit_test(class_never_numbered_is_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
