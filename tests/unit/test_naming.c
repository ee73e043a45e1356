/* force=n unique names and the default names (reference 2.5). */
#include "agent/io/naming.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

static void expect(const char *name, int binary, const char *want)
{
    char *got = hp_unique_filename(name, binary, 4242);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_defaults(void **state)
{
    (void)state;
    assert_string_equal(hp_default_filename(false), "java.hprof.txt");
    assert_string_equal(hp_default_filename(true), "java.hprof");
}

static void test_unique(void **state)
{
    (void)state;
    expect("out.txt", 0, "out.4242.txt");
    expect("OUT.TXT", 0, "OUT.4242.TXT");
    expect("out.log", 0, "out.log.4242.txt");
    expect("foo", 0, "foo.4242.txt");
    expect("java.hprof.txt", 0, "java.hprof.4242.txt");
    expect("dir.d/prof", 0, "dir.d/prof.4242.txt");
    /* the original overflowed a 5-byte buffer here */
    expect("a.txtlong", 0, "a.4242.txtlong");
    expect("java.hprof", 1, "java.hprof.4242");
    expect("x.txt", 1, "x.txt.4242");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_defaults),
                                       cmocka_unit_test(test_unique)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
