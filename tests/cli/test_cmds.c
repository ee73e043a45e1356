/* Exact output of the reporting subcommands over the fixture. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>
#include <time.h>

#include "fixture.h"
#include "run.h"

/* The fixture's time stamp, 10^12 ms, in ctime() form for TZ=UTC. */
#define WHEN "Sun Sep  9 01:46:40 2001\n"

static const char trace_300001[] = "TRACE 300001: (thread=200001)\n"
                                   "\tFoo.<init>(Foo.java:12)\n"
                                   "\tFoo.run(<Unknown Source>:Unknown line)\n";
static const char sites[] = "SITES BEGIN (ordered by live bytes) " WHEN
                            "          percent          live          alloc'ed  stack class\n"
                            " rank   self  accum     bytes objs     bytes  objs trace name\n"
                            "    1 66.67% 66.67%       200    3       900     9 300001 Foo\n"
                            "    2 33.33% 100.00%       100    1       100     1 300000 char[]\n"
                            "SITES END\n";
static const char samples[] =
    "CPU SAMPLES BEGIN (total = 10) " WHEN "rank   self  accum   count trace method\n"
    "   1 70.00% 70.00%       7 300001 Foo.<init>\n"
    "   2 30.00% 100.00%       3 300000 <empty trace>\n"
    "CPU SAMPLES END\n";

static run_result run_fixture(cmd_fn fn, uint32_t id_size, int segmented, int two, hp_opts o)
{
    hb_buf b;
    fx_build(&b, id_size, segmented, two);
    run_result r = run_cmd(fn, &b, &o);
    hb_free(&b);
    return r;
}

static void histo(void **state)
{
    (void)state;
    /* Foo: align8(12 + 4 + ref 4 + 8) = 32 each; arrays 16-byte header. */
    static const char want[] = " num     #instances         #bytes  class name\n"
                               "----------------------------------------------\n"
                               "   1:             2             64  Foo\n"
                               "   2:             1             32  char[]\n"
                               "   3:             1             32  Foo[]\n"
                               "   4:             1             16  java.lang.Object\n"
                               "Total             5            144\n";
    for (uint32_t id = 4; id <= 8; id += 4) {
        run_result r = run_fixture(hp_cmd_histo, id, 1, 0, run_opts());
        assert_int_equal(r.rc, 0);
        assert_string_equal(r.out, want);
        run_free(&r);
    }
    hp_opts o = run_opts();
    o.model = hp_model_find("raw");
    o.top = 1;
    run_result r = run_fixture(hp_cmd_histo, 8, 0, 0, o);
    assert_string_equal(r.out, " num     #instances         #bytes  class name\n"
                               "----------------------------------------------\n"
                               "   1:             2             40  Foo\n"
                               "Total             5             74\n");
    run_free(&r);
    /* wide: 16-byte headers, 8-byte references, Object[] elements 8-aligned. */
    o = run_opts();
    o.model = hp_model_find("wide");
    r = run_fixture(hp_cmd_histo, 8, 0, 0, o);
    assert_string_equal(r.out, " num     #instances         #bytes  class name\n"
                               "----------------------------------------------\n"
                               "   1:             2             80  Foo\n"
                               "   2:             1             48  Foo[]\n"
                               "   3:             1             32  char[]\n"
                               "   4:             1             16  java.lang.Object\n"
                               "Total             5            176\n");
    run_free(&r);
    /* --dump picks the second, smaller heap dump. */
    o = run_opts();
    o.dump = 2;
    r = run_fixture(hp_cmd_histo, 8, 1, 1, o);
    assert_string_equal(r.out, " num     #instances         #bytes  class name\n"
                               "----------------------------------------------\n"
                               "   1:             1             32  int[]\n"
                               "   2:             1             16  java.lang.Object\n"
                               "Total             2             48\n");
    run_free(&r);
    o.dump = 3;
    r = run_fixture(hp_cmd_histo, 8, 1, 1, o);
    assert_int_equal(r.rc, HP_EXIT_NODATA);
    assert_string_equal(r.err, "hprof: error: t.hprof: no heap dump 3 (the file has 2)\n");
    run_free(&r);
}

static void sites_and_samples(void **state)
{
    (void)state;
    char want[2000];
    run_result r = run_fixture(hp_cmd_sites, 4, 0, 0, run_opts());
    snprintf(want, sizeof want, "%sTRACE 300000:\n\t<empty>\n%s", trace_300001, sites);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.out, want);
    run_free(&r);
    r = run_fixture(hp_cmd_samples, 8, 0, 0, run_opts());
    snprintf(want, sizeof want, "%sTRACE 300000:\n\t<empty>\n%s", trace_300001, samples);
    assert_string_equal(r.out, want);
    run_free(&r);

    hb_buf b;
    hb_init(&b, "1.0.2", 8);
    r = run_cmd(hp_cmd_sites, &b, &(hp_opts){0});
    assert_int_equal(r.rc, HP_EXIT_NODATA);
    assert_string_equal(r.err, "hprof: error: t.hprof: no ALLOC SITES record\n");
    run_free(&r);
    hb_free(&b);
}

static void threads(void **state)
{
    (void)state;
    run_result r = run_fixture(hp_cmd_threads, 8, 0, 0, run_opts());
    char want[1000];
    snprintf(want, sizeof want,
             "THREAD START (obj=2040, id = 200001, name=\"main\", group=\"main\")\n"
             "THREAD END (id = 200001)\n"
             "THREAD OBJ 2040 (id = 200001, trace = 300001, name=\"\", heap dump 1)\n%s",
             trace_300001);
    assert_string_equal(r.out, want);
    run_free(&r);
}

/* A thread root, its Thread (class 0x9000) and its compact name String (0x9010). */
static void named_thread(hb_buf *b, uint64_t thread, uint32_t serial, uint8_t coder,
                         const char *bytes, uint32_t n)
{
    uint64_t str = thread + 1, arr = thread + 2;
    hb_u1(b, 0x08);
    hb_id(b, thread);
    hb_u4(b, serial);
    hb_u4(b, 0);
    hb_u1(b, 0x21);
    hb_id(b, thread);
    hb_u4(b, 0);
    hb_id(b, 0x9000);
    hb_u4(b, 8);
    hb_id(b, str);
    hb_u1(b, 0x21);
    hb_id(b, str);
    hb_u4(b, 0);
    hb_id(b, 0x9010);
    hb_u4(b, 9);
    hb_id(b, arr);
    hb_u1(b, coder);
    hb_u1(b, 0x23);
    hb_id(b, arr);
    hb_u4(b, 0);
    hb_u4(b, n);
    hb_u1(b, 8);
    hb_bytes(b, bytes, n);
}

static void thread_names(void **state)
{
    (void)state;
    static const uint64_t thread_fields[] = {50}, string_fields[] = {51, 52};
    static const uint8_t thread_types[] = {2}, string_types[] = {2, 8};
    hb_buf b;
    hb_init(&b, "1.0.2", 8);
    hb_utf8(&b, 50, "name");
    hb_utf8(&b, 51, "value");
    hb_utf8(&b, 52, "coder");
    hb_utf8(&b, 53, "java/lang/Thread");
    hb_utf8(&b, 54, "java/lang/String");
    hb_load_class(&b, 1, 0x9000, 0, 53);
    hb_load_class(&b, 2, 0x9010, 0, 54);
    hb_load_class(&b, 3, 0x9020, 0, 54);
    size_t r = hb_begin(&b, 0x1C);
    hb_class_dump(&b, 0x9000, 0, 8, 1, thread_fields, thread_types);
    hb_class_dump(&b, 0x9010, 0, 9, 2, string_fields, string_types);
    named_thread(&b, 0xA000, 1, 0, "worker", 6);
    named_thread(&b, 0xB000, 2, 1, "\xA9\x03", 2); /* U+03A9 in UTF-16LE */
    /* JDK 8: String has no coder and its value is a char[] (big-endian in HPROF). */
    hb_class_dump(&b, 0x9020, 0, 8, 1, string_fields, string_types);
    hb_u1(&b, 0x08);
    hb_id(&b, 0xC000);
    hb_u4(&b, 3);
    hb_u4(&b, 0);
    hb_instance(&b, 0xC000, 0, 0x9000, (const uint8_t[]){0, 0, 0, 0, 0, 0, 0xC0, 0x01}, 8);
    hb_instance(&b, 0xC001, 0, 0x9020, (const uint8_t[]){0, 0, 0, 0, 0, 0, 0xC0, 0x02}, 8);
    hb_u1(&b, 0x23);
    hb_id(&b, 0xC002);
    hb_u4(&b, 0);
    hb_u4(&b, 2);
    hb_u1(&b, 5);
    hb_bytes(&b, "\0G\0C", 4);
    hb_end(&b, r);
    hb_end(&b, hb_begin(&b, 0x2C));
    hp_opts o = run_opts();
    o.strict = 1;
    run_result v = run_cmd(hp_cmd_verify, &b, &o);
    assert_int_equal(v.rc, 0);
    run_free(&v);
    run_result t = run_cmd(hp_cmd_threads, &b, &o);
    assert_string_equal(t.out,
                        "THREAD OBJ a000 (id = 1, trace = 0, name=\"worker\", heap dump 1)\n"
                        "THREAD OBJ b000 (id = 2, trace = 0, name=\"\xCE\xA9\", heap dump 1)\n"
                        "THREAD OBJ c000 (id = 3, trace = 0, name=\"GC\", heap dump 1)\n");
    run_free(&t);
    hb_free(&b);
}

static void text(void **state)
{
    (void)state;
    run_result r = run_fixture(hp_cmd_text, 4, 0, 0, run_opts());
    char want[4000];
    snprintf(want, sizeof want,
             "JAVA PROFILE 1.0.1, created " WHEN "\n--------\n\n"
             "TRACE 300000:\n\t<empty>\n%s"
             "THREAD START (obj=2040, id = 200001, name=\"main\", group=\"main\")\n"
             "HEAP DUMP BEGIN (5 objects, 144 bytes) " WHEN
             "ROOT 2040 (kind=<thread>, id=200001, trace=300001)\n"
             "ROOT 1000 (kind=<system class>, name=java.lang.Object)\n"
             "ROOT 2000 (kind=<Java stack>, thread=200001, frame=0)\n"
             "ROOT 2020 (kind=<JNI global ref>, id=1, trace=0)\n"
             "CLS 1000 (name=java.lang.Object, trace=0)\n"
             "CLS 1010 (name=Foo, trace=0)\n\tsuper\t\t1000\n"
             "CLS 1020 (name=Foo[], trace=0)\n\tsuper\t\t1000\n"
             "OBJ 2000 (sz=32, trace=300001, class=Foo@1010)\n\tnextFoo\t\t2010\n"
             "OBJ 2010 (sz=32, trace=300001, class=Foo@1010)\n"
             "OBJ 2040 (sz=16, trace=300000, class=java.lang.Object@1000)\n"
             "ARR 2020 (sz=32, trace=0, nelems=3, elem type=Foo[]@1020)\n"
             "\t[0]\t\t2000\n\t[2]\t\t2010\n"
             "ARR 2030 (sz=32, trace=0, nelems=5, elem type=char[])\n"
             "HEAP DUMP END\n%s%sTHREAD END (id = 200001)\n",
             trace_300001, sites, samples);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.out, want);
    run_free(&r);
}

static void text_selects_dump(void **state)
{
    (void)state;
    hp_opts o = run_opts();
    o.dump = 2;
    run_result r = run_fixture(hp_cmd_text, 8, 1, 1, o);
    assert_int_equal(r.rc, 0);
    assert_null(strstr(r.out, "HEAP DUMP BEGIN (5 objects"));
    assert_non_null(strstr(r.out, "HEAP DUMP BEGIN (2 objects, 48 bytes) " WHEN
                                  "ROOT 1000 (kind=<system class>, name=java.lang.Object)\n"
                                  "CLS 1000 (name=java.lang.Object, trace=0)\n"
                                  "OBJ 3000 (sz=16, trace=0, class=java.lang.Object@1000)\n"
                                  "ARR 3010 (sz=32, trace=0, nelems=4, elem type=int[])\n"
                                  "HEAP DUMP END\n"));
    assert_non_null(strstr(r.out, "SITES END\n"));
    run_free(&r);
}

static void records_and_summary(void **state)
{
    (void)state;
    hp_opts o = run_opts();
    o.heap = 1;
    run_result r = run_fixture(hp_cmd_records, 4, 0, 0, o);
    assert_int_equal(r.rc, 0);
    assert_non_null(strstr(r.out, "\n          31 CONTROL SETTINGS            0          6 "
                                  "flags=0x3 depth=4\n"
                                  "          46 UTF8                        0         20 id=0x1 "
                                  "\"java.lang.Object\"\n"));
    assert_non_null(strstr(r.out, "\n         477 TRACE                       0         20 "
                                  "serial=300001 thread=200001 frames=2 [0x7001,0x7002]\n"));
    assert_non_null(strstr(r.out, "\n         539 HEAP DUMP                   0        320\n"
                                  "         548   ROOT THREAD OBJECT     id=0x2040 "
                                  "thread=200001 trace=300001\n"));
    assert_non_null(strstr(r.out, "\n         732   INSTANCE DUMP          id=0x2000 "
                                  "class=0x1010 trace=300001 bytes=16\n"));
    assert_non_null(strstr(r.out, "\n         844   PRIMITIVE ARRAY DUMP   id=0x2030 type=char "
                                  "trace=0 length=5\n"));
    assert_non_null(strstr(r.out, "cutoff=0.0001 live_bytes=300"));
    run_free(&r);

    r = run_fixture(hp_cmd_summary, 8, 1, 1, run_opts());
    assert_int_equal(r.rc, 0);
    assert_non_null(strstr(r.out, "format:     JAVA PROFILE 1.0.2, ID size 8\n"
                                  "created:    2001-09-09 01:46:40.000 UTC (1000000000000 ms)\n"
                                  "records:    31\n"));
    assert_non_null(strstr(r.out, "  HEAP DUMP SEGMENT               3\n"));
    assert_non_null(strstr(r.out, "threads:    1 started, 1 ended\nheap dumps: 2\n"));
    assert_non_null(strstr(r.out, "    objects 5 (instances 3, object arrays 1, primitive arrays "
                                  "1), shallow bytes 144 (model coops)\n"
                                  "    classes 3, roots 4 (thread objects 1)\n"));
    assert_non_null(strstr(r.out, "  dump 2 at offset "));
    run_free(&r);
}

/* Fuzzer finds: an empty heap dump once passed NULL to qsort in histo and verify. */
static void empty_dump(void **state)
{
    (void)state;
    hb_buf b;
    hb_init(&b, "1.0.1", 4);
    hb_end(&b, hb_begin(&b, 0x0C));
    run_result r = run_cmd(hp_cmd_histo, &b, &(hp_opts){.model = hp_model_default()});
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.out, " num     #instances         #bytes  class name\n"
                               "----------------------------------------------\n"
                               "Total             0              0\n");
    run_free(&r);
    hp_opts o = run_opts();
    o.strict = 1;
    r = run_cmd(hp_cmd_verify, &b, &o);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.out, "t.hprof: OK: JAVA PROFILE 1.0.1, ID size 4, 1 record, 1 heap dump, "
                               "0 objects, 0 dangling references\n");
    run_free(&r);
    hb_free(&b);
}

/* Every reporting command refuses a body that does not decode, with exit 1. */
static void malformed_input(void **state)
{
    (void)state;
    static const cmd_fn fns[] = {hp_cmd_records, hp_cmd_summary, hp_cmd_histo, hp_cmd_sites,
                                 hp_cmd_samples, hp_cmd_threads, hp_cmd_text};
    hb_buf b;
    hb_init(&b, "1.0.1", 4);
    size_t at = hb_begin(&b, 0x0C);
    hb_u1(&b, 0x21);
    hb_u4(&b, 1);
    hb_end(&b, at);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        hp_opts o = run_opts();
        o.heap = 1;
        run_result r = run_cmd(fns[i], &b, &o);
        if (fns[i] == hp_cmd_sites || fns[i] == hp_cmd_samples) {
            assert_int_equal(r.rc, HP_EXIT_NODATA); /* the heap dump is not read */
        } else {
            assert_int_equal(r.rc, HP_EXIT_MALFORMED);
            assert_string_equal(
                r.err, "hprof: error: t.hprof: INSTANCE DUMP truncated in "
                       "stack trace serial (0 bytes left in the HEAP DUMP record at offset 31, "
                       "need 4) at offset 45\n");
        }
        run_free(&r);
    }
    hb_free(&b);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histo),
        cmocka_unit_test(sites_and_samples),
        cmocka_unit_test(threads),
        cmocka_unit_test(thread_names),
        cmocka_unit_test(text),
        cmocka_unit_test(text_selects_dump),
        cmocka_unit_test(records_and_summary),
        cmocka_unit_test(empty_dump),
        cmocka_unit_test(malformed_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
