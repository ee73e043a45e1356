/*
 * Replays every file in tests/cli/corpus (fuzzer seeds and past crashers)
 * through all subcommands: each must end with a documented exit code.
 * Under the ASan build this is the regression test for fuzzer findings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <string.h>

#include "run.h"

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void replay_corpus(void **state)
{
    (void)state;
    static const cmd_fn fns[] = {hp_cmd_verify, hp_cmd_records, hp_cmd_summary, hp_cmd_histo,
                                 hp_cmd_sites,  hp_cmd_samples, hp_cmd_threads, hp_cmd_text};
    const char *dir = getenv("CLI_CORPUS");
    assert_non_null(dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        uint8_t *data = slurp(path, &len);
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            hp_opts o = run_opts();
            o.heap = 1;
            run_result r = run_mem(fns[i], data, len, &o);
            if (r.rc != -1 && r.rc != HP_EXIT_OK && r.rc != HP_EXIT_MALFORMED &&
                r.rc != HP_EXIT_NODATA)
                fail_msg("%s: command %zu exited %d", e->d_name, i, r.rc);
            run_free(&r);
        }
        free(data);
        files++;
    }
    closedir(d);
    assert_true(files > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(replay_corpus)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
