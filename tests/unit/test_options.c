/* Every option-parsing rule and error text of reference section 2. */
#include "agent/core/options.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static struct hp_options parse_ok(const char *text)
{
    struct hp_options o;
    char err[256] = "";
    int rc = hp_options_parse(text, &o, err, sizeof err);
    if (rc != 0) fail_msg("'%s' rejected: %s", text ? text : "(null)", err);
    return o;
}

static void expect_error(const char *text, const char *message)
{
    struct hp_options o;
    char err[256] = "";
    assert_int_equal(hp_options_parse(text, &o, err, sizeof err), -1);
    assert_string_equal(err, message);
}

static void test_defaults(void **state)
{
    (void)state;
    struct hp_options o = parse_ok(NULL);
    assert_true(o.heap_dump && o.heap_sites); /* bare -agentlib:hprof = heap=all */
    assert_false(o.cpu_samples || o.cpu_times || o.monitor);
    assert_int_equal(o.format, HP_FORMAT_ASCII);
    assert_null(o.file);
    assert_int_equal(o.depth, 4);
    assert_int_equal(o.interval_ms, 10);
    assert_true(o.cutoff == 0.0001);
    assert_true(o.lineno && o.doe && o.force && o.verbose);
    assert_false(o.thread || o.msa);
    o = parse_ok("");
    assert_true(o.heap_dump && o.heap_sites);
    o = parse_ok("depth=6,thread=y");
    assert_true(o.heap_dump && o.heap_sites);
    assert_false(o.coredump || o.errorexit || o.pause || o.debug);
    o = parse_ok("coredump=y,errorexit=y,pause=y,debug=y");
    assert_true(o.coredump && o.errorexit && o.pause && o.debug);
}

static void test_modes(void **state)
{
    (void)state;
    struct hp_options o = parse_ok("cpu=samples");
    assert_true(o.cpu_samples);
    assert_false(o.heap_dump || o.heap_sites); /* cpu alone: no heap profiling */
    o = parse_ok("cpu=y");
    assert_true(o.cpu_samples);
    o = parse_ok("heap=dump,heap=sites"); /* heap= accumulates */
    assert_true(o.heap_dump && o.heap_sites);
    o = parse_ok("cpu=samples,cpu=times");
    assert_true(o.cpu_samples && o.cpu_times && !o.cpu_old);
    o = parse_ok("cpu=old");
    assert_true(o.cpu_times && o.cpu_old);
    o = parse_ok("monitor=y");
    assert_true(o.monitor && !o.heap_dump);
    o = parse_ok("monitor=n"); /* not a mode request: defaults apply */
    assert_true(o.heap_dump && o.heap_sites);
    o = parse_ok("heap=sites");
    assert_true(o.heap_sites && !o.heap_dump);
}

static void test_values(void **state)
{
    (void)state;
    struct hp_options o =
        parse_ok("format=b,depth=0,interval=20,cutoff=0.5,lineno=n,thread=y,doe=n,msa=y,force=n,"
                 "verbose=n,gc_okay=y,primfields=n,primarrays=n,logflags=0x4,debugflags=1,X=7,"
                 "alloc_interval=524288,");
    assert_int_equal(o.format, HP_FORMAT_BINARY);
    assert_int_equal(o.depth, 0);
    assert_int_equal(o.interval_ms, 20);
    assert_true(o.cutoff == 0.5);
    assert_false(o.lineno || o.doe || o.force || o.verbose || o.primfields || o.primarrays);
    assert_true(o.thread && o.msa);
    assert_int_equal(o.logflags, 4);
    assert_int_equal(o.debugflags, 1);
    assert_int_equal(o.alloc_interval, 524288);
    o = parse_ok("depth=1024");
    assert_int_equal(o.depth, HP_MAX_DEPTH);
    hp_options_free(&o);
    o = parse_ok("depth=1,depth=9"); /* the last value wins */
    assert_int_equal(o.depth, 9);
    o = parse_ok("logflags=12junk"); /* strtol(..., 0): trailing junk ignored */
    assert_int_equal(o.logflags, 12);
}

static void test_output_options(void **state)
{
    (void)state;
    struct hp_options o = parse_ok("file=out.txt");
    assert_string_equal(o.file, "out.txt");
    hp_options_free(&o);
    o = parse_ok("net=localhost:9000");
    assert_string_equal(o.net_host, "localhost");
    assert_int_equal(o.net_port, 9000);
    hp_options_free(&o);
    o = parse_ok("net=[::1]:9001,format=b");
    assert_string_equal(o.net_host, "::1");
    assert_int_equal(o.net_port, 9001);
    hp_options_free(&o);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("averyveryverylongname=1", "general syntax error parsing options");
    expect_error("file=a,file=b", "file or net options should only appear once");
    expect_error("file=a,net=h:1", "file or net options should only appear once");
    expect_error("net=h:1,file=a", "file or net options should only appear once");
    expect_error("file=", "syntax error parsing file=filename");
    expect_error("net=host", "net option missing ':'");
    expect_error("net=host,port", "net option missing ':'");
    expect_error("net=host:", "net option missing port");
    expect_error("net=host:0", "net option port must be decimal 1..65535");
    expect_error("net=host:70000", "net option port must be decimal 1..65535");
    expect_error("net=host:8x", "net option port must be decimal 1..65535");
    expect_error("format=", "syntax error parsing format=a|b");
    expect_error("format=c", "format option value must be a|b");
    expect_error("depth=", "syntax error parsing depth=DECIMAL");
    expect_error("depth=-1", "depth option value must be decimal and >= 0");
    expect_error("depth=4x", "depth option value must be decimal and >= 0");
    expect_error("depth=1025", "depth option value must be at most 1024");
    expect_error("depth=2147483647", "depth option value must be at most 1024");
    expect_error("interval=", "syntax error parsing interval=DECIMAL");
    expect_error("interval=0", "interval option value must be decimal and > 0");
    expect_error("cutoff=", "syntax error parsing cutoff=DOUBLE");
    expect_error("cutoff=-1", "cutoff option value must be floating point and >= 0");
    expect_error("cutoff=abc", "cutoff option value must be floating point and >= 0");
    expect_error("cpu=", "syntax error parsing cpu=y|samples|times|old");
    expect_error("cpu", "syntax error parsing cpu=y|samples|times|old");
    expect_error("cpu=fast", "cpu option value must be y|samples|times|old");
    expect_error("heap=", "syntax error parsing heap=dump|sites|all");
    expect_error("heap", "syntax error parsing heap=dump|sites|all");
    expect_error("heap=none", "heap option value must be dump|sites|all");
    const char *yn[] = {"lineno",   "thread",     "doe",        "msa",     "force",
                        "verbose",  "primfields", "primarrays", "monitor", "gc_okay",
                        "coredump", "errorexit",  "pause",      "debug"};
    for (size_t i = 0; i < sizeof yn / sizeof yn[0]; i++) {
        char text[64], message[64];
        snprintf(text, sizeof text, "%s=yes", yn[i]);
        snprintf(message, sizeof message, "%s option value must be y|n", yn[i]);
        expect_error(text, message);
        snprintf(text, sizeof text, "%s=", yn[i]);
        expect_error(text, message);
    }
    expect_error("logflags=x", "logflags option value must be numeric");
    expect_error("debugflags=", "debugflags option value must be numeric");
    expect_error("X=z", "X option value must be numeric");
    expect_error("alloc_interval=-5",
                 "alloc_interval option value must be decimal bytes in 0..2147483647");
    expect_error("alloc_interval=", "syntax error parsing alloc_interval=DECIMAL");
    expect_error("bogus=1", "Unknown option: bogus");
    expect_error("heap=sites,help", "Unknown option: help");
    expect_error("a=b,,c=d", "Unknown option: a");
    expect_error("depth=1,,c=d", "Unknown option: ,c");
    expect_error("cpu=times,format=b", "cpu=times|old is not supported with format=b");
    expect_error("format=b,cpu=old", "cpu=times|old is not supported with format=b");
    expect_error("monitor=y,format=b", "monitor=y is not supported with format=b");
    expect_error("exitpause=y", "The exitpause option was removed, use -XX:OnError='cmd %%p'");
    expect_error("precrash=y",
                 "The precrash option was removed, use -XX:OnError='precrash -p %%p'");
}

static void test_help(void **state)
{
    (void)state;
    struct hp_options o = parse_ok("help");
    assert_true(o.help);
    assert_non_null(strstr(hp_usage_text,
                           "hprof usage: java -agentlib:hprof=[help]|[<option>=<value>, ...]\n"));
    assert_int_equal(hp_usage_text[0], '\n');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults), cmocka_unit_test(test_modes),
        cmocka_unit_test(test_values),   cmocka_unit_test(test_output_options),
        cmocka_unit_test(test_errors),   cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
