/* Type names and basic types as the formats write them. */
#include "agent/tables/names.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

static void expect(const char *sig, const char *want)
{
    char *got = hp_sig_to_name(sig);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_names(void **state)
{
    (void)state;
    expect("Ljava/lang/String;", "java.lang.String");
    expect("[I", "int[]");
    expect("[[Z", "boolean[][]");
    expect("[Ljava/lang/Object;", "java.lang.Object[]");
    expect("[[[Ljava/lang/Thread$State;", "java.lang.Thread$State[][][]");
    expect("J", "long");
    expect("Lcom/x/Foo$$Lambda$14.0x0000000800c03000;", "com.x.Foo$$Lambda$14.0x0000000800c03000");
    expect("", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_names)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
