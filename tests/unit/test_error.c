/* The debug options' effect on errors (errorexit, coredump) and pause=y. Each
 * error case runs in a child process, which it ends. */
#include "agent/core/error.h"
#include "agent/core/pause.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

enum action { ERROR_ONLY, FATAL };

/* Runs the action in a child with the policy set; returns its wait status
 * and what it wrote on stderr. */
static int run_child(bool errorexit, bool coredump, enum action what, char *err, size_t errlen)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        signal(SIGABRT, SIG_DFL);
        hp_set_error_policy(errorexit, coredump);
        if (what == FATAL) hp_fatal(HP_AGENT_EXIT_FATAL, "broken %d", 1);
        hp_error("broken %d", 2);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void test_error_continues_by_default(void **state)
{
    (void)state;
    char err[512];
    int st = run_child(false, false, ERROR_ONLY, err, sizeof err);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_string_equal(err, "HPROF ERROR: broken 2\n");
}

static void test_errorexit_makes_errors_fatal(void **state)
{
    (void)state;
    char err[512];
    int st = run_child(true, false, ERROR_ONLY, err, sizeof err);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == HP_AGENT_EXIT_FATAL);
    assert_string_equal(err, "HPROF ERROR: broken 2\nHPROF TERMINATED PROCESS\n");
}

static void test_fatal_exits_9(void **state)
{
    (void)state;
    char err[512];
    int st = run_child(false, false, FATAL, err, sizeof err);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == HP_AGENT_EXIT_FATAL);
    assert_string_equal(err, "HPROF ERROR: broken 1\nHPROF TERMINATED PROCESS\n");
}

static void test_coredump_aborts(void **state)
{
    (void)state;
    char err[512];
    int st = run_child(false, true, FATAL, err, sizeof err);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    assert_string_equal(err, "HPROF ERROR: broken 1\nHPROF DUMPING CORE\n");
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *release(void *arg)
{
    (void)arg;
    while (!hp_pause_waiting)
        sched_yield();
    hp_pause_waiting = 0; /* what a debugger does */
    return NULL;
}

static void test_pause_ends_when_released(void **state)
{
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, release, NULL), 0);
    double start = now_ms();
    hp_pause(1, 600000);
    assert_true(now_ms() - start < 600000);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(hp_pause_waiting, 0);
}

static void test_pause_ends_at_its_limit(void **state)
{
    (void)state;
    hp_pause(2, 6); /* nobody releases it: three steps */
    assert_int_equal(hp_pause_waiting, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_continues_by_default),
        cmocka_unit_test(test_errorexit_makes_errors_fatal),
        cmocka_unit_test(test_fatal_exits_9),
        cmocka_unit_test(test_coredump_aborts),
        cmocka_unit_test(test_pause_ends_when_released),
        cmocka_unit_test(test_pause_ends_at_its_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
