/* Which JVM option makes class data sharing mandatory, from the four places
 * HotSpot reads options, in its order. */
#include "agent/core/jvm_args.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

/* argv as /proc/self/cmdline has it: NUL after each argument. */
static const char *sharing(const char *tool, const char *jdk, const char *const *argv,
                           const char *underscore)
{
    static char cmdline[512], out[64];
    size_t len = 0;
    for (; argv != NULL && *argv != NULL; argv++) {
        size_t n = strlen(*argv) + 1;
        memcpy(cmdline + len, *argv, n);
        len += n;
    }
    hp_jvm_args_mandatory_sharing(tool, jdk, argv ? cmdline : NULL, len, underscore, out,
                                  sizeof out);
    return out;
}

static void test_command_line(void **state)
{
    (void)state;
    const char *on[] = {"java", "-Xshare:on", "-cp", ".", "Main", NULL};
    assert_string_equal(sharing(NULL, NULL, on, NULL), "-Xshare:on");
    const char *aot[] = {"java", "-XX:AOTCache=app.aot", "-XX:AOTMode=on", "-jar", "a.jar", NULL};
    assert_string_equal(sharing(NULL, NULL, aot, NULL), "-XX:AOTMode=on");
    const char *req[] = {"java", "-XX:+RequireSharedSpaces", "Main", NULL};
    assert_string_equal(sharing(NULL, NULL, req, NULL), "-XX:+RequireSharedSpaces");
    const char *none[] = {"java", "-Xshare:auto", "-XX:AOTMode=auto", "Main", NULL};
    assert_string_equal(sharing(NULL, NULL, none, NULL), "");
}

static void test_last_word_wins(void **state)
{
    (void)state;
    const char *off[] = {"java", "-Xshare:on", "-Xshare:off", "Main", NULL};
    assert_string_equal(sharing(NULL, NULL, off, NULL), "");
    const char *auto_[] = {"java", "-Xshare:auto", "Main", NULL};
    assert_string_equal(sharing("-Xshare:on", NULL, auto_, NULL), "");
    assert_string_equal(sharing(NULL, "-Xshare:on", auto_, NULL), "");
    assert_string_equal(sharing(NULL, NULL, auto_, "-Xmx1g  -Xshare:on"), "-Xshare:on");
    const char *plain[] = {"java", "Main", NULL};
    assert_string_equal(sharing(" -Xss1m\t-XX:AOTMode=on ", NULL, plain, NULL), "-XX:AOTMode=on");
    const char *minus[] = {"java", "-XX:-RequireSharedSpaces", "Main", NULL};
    assert_string_equal(sharing("-XX:+RequireSharedSpaces", NULL, minus, NULL), "");
}

static void test_program_arguments_are_not_the_jvms(void **state)
{
    (void)state;
    const char *after_main[] = {"java", "-cp", "-Xshare:on", "Main", "-Xshare:on", NULL};
    assert_string_equal(sharing(NULL, NULL, after_main, NULL), "");
    const char *after_jar[] = {"java", "-jar", "app.jar", "-Xshare:on", NULL};
    assert_string_equal(sharing(NULL, NULL, after_jar, NULL), "");
    const char *after_module[] = {"java",     "--module-path", "mods", "-m",
                                  "m/p.Main", "-Xshare:on",    NULL};
    assert_string_equal(sharing(NULL, NULL, after_module, NULL), "");
    const char *module_eq[] = {"java", "--module=m/p.Main", "-Xshare:on", NULL};
    assert_string_equal(sharing(NULL, NULL, module_eq, NULL), "");
    assert_string_equal(sharing(NULL, NULL, NULL, NULL), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_last_word_wins),
        cmocka_unit_test(test_program_arguments_are_not_the_jvms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
