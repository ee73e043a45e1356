/* `hprof verify` over well-formed and deliberately broken files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "fixture.h"
#include "run.h"

static run_result verify(const hb_buf *b, int strict)
{
    hp_opts o = run_opts();
    o.strict = strict;
    return run_cmd(hp_cmd_verify, b, &o);
}

static void expect_ok(const hb_buf *b, const char *summary)
{
    run_result r = verify(b, 1);
    assert_string_equal(r.err, "");
    assert_int_equal(r.rc, HP_EXIT_OK);
    assert_string_equal(r.out, summary);
    run_free(&r);
}

/* Expects exactly one error line, equal to `line`. */
static void expect_error(const hb_buf *b, int strict, const char *line)
{
    run_result r = verify(b, strict);
    char want[600];
    snprintf(want, sizeof want, "hprof: error: t.hprof: %s\nhprof: t.hprof: FAILED: 1 error\n",
             line);
    assert_string_equal(r.err, want);
    assert_int_equal(r.rc, HP_EXIT_MALFORMED);
    assert_string_equal(r.out, "");
    run_free(&r);
}

static void well_formed_variants(void **state)
{
    (void)state;
    hb_buf b;
    fx_build(&b, 4, 0, 0);
    expect_ok(&b, "t.hprof: OK: JAVA PROFILE 1.0.1, ID size 4, 27 records, 1 heap dump, "
                  "8 objects, 0 dangling references\n");
    hb_free(&b);
    fx_build(&b, 8, 1, 0);
    expect_ok(&b, "t.hprof: OK: JAVA PROFILE 1.0.2, ID size 8, 28 records, 1 heap dump, "
                  "8 objects, 0 dangling references\n");
    hb_free(&b);
    fx_build(&b, 8, 1, 1);
    expect_ok(&b, "t.hprof: OK: JAVA PROFILE 1.0.2, ID size 8, 31 records, 2 heap dumps, "
                  "11 objects, 0 dangling references\n");
    hb_free(&b);
}

/* A file with the fixture's strings/classes and one custom heap dump record. */
static size_t start_custom(hb_buf *b)
{
    fx_build(b, 8, 0, 0);
    return hb_begin(b, 0x0C);
}

static void instance_size_mismatch(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    hb_class_dump(&b, FX_OBJECT_CLASS, 0, 0, 0, NULL, NULL);
    static const uint64_t names[] = {5, 6, 7};
    static const uint8_t types[] = {10, 2, 11};
    hb_class_dump(&b, FX_FOO_CLASS, FX_OBJECT_CLASS, 20, 3, names, types);
    size_t inst = b.len;
    hb_instance(&b, 0x5000, 0, FX_FOO_CLASS, "0123456789ab", 12);
    hb_end(&b, at);
    char line[300];
    snprintf(line, sizeof line,
             "INSTANCE DUMP 0x5000 of class Foo has 12 field bytes, its CLASS DUMPs declare 20 "
             "at offset %zu",
             inst);
    expect_error(&b, 1, line);
    hb_free(&b);
}

static void class_size_mismatch(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    size_t cls = b.len;
    static const uint64_t names[] = {5};
    static const uint8_t types[] = {10};
    hb_class_dump(&b, FX_OBJECT_CLASS, 0, 8, 1, names, types);
    hb_end(&b, at);
    char line[300];
    snprintf(line, sizeof line,
             "CLASS DUMP 0x1000 instance size 8, its fields need 4 at offset %zu", cls);
    expect_error(&b, 1, line);
    hb_free(&b);
}

static void missing_class_and_super(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    size_t inst = b.len;
    hb_instance(&b, 0x5000, 0, 0x4444, NULL, 0);
    hb_end(&b, at);
    char line[300];
    snprintf(line, sizeof line,
             "INSTANCE DUMP 0x5000 has class 0x4444, which has no CLASS DUMP in this heap dump "
             "at offset %zu",
             inst);
    expect_error(&b, 1, line);
    hb_free(&b);

    at = start_custom(&b);
    size_t cls = b.len;
    hb_class_dump(&b, FX_FOO_CLASS, 0x4444, 0, 0, NULL, NULL);
    hb_end(&b, at);
    run_result r = verify(&b, 1);
    snprintf(line, sizeof line,
             "hprof: error: t.hprof: CLASS DUMP 0x1010 has super class 0x4444, which has no "
             "CLASS DUMP in this heap dump at offset %zu\n"
             "hprof: error: t.hprof: CLASS DUMP 0x1010 super class chain is broken or loops at "
             "offset %zu\n",
             cls, cls);
    assert_non_null(strstr(r.err, line));
    assert_int_equal(r.rc, HP_EXIT_MALFORMED);
    run_free(&r);
    hb_free(&b);
}

static void dangling_reference(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    hb_class_dump(&b, FX_FOO_ARRAY_CLASS, 0, 0, 0, NULL, NULL);
    uint64_t elems[2] = {0, 0x9999};
    size_t arr = b.len;
    hb_obj_array(&b, 0x5000, FX_FOO_ARRAY_CLASS, 2, elems);
    hb_end(&b, at);
    /* Without --strict a dangling reference is counted, not fatal. */
    run_result r = verify(&b, 0);
    assert_int_equal(r.rc, HP_EXIT_OK);
    char summary[200];
    snprintf(summary, sizeof summary,
             "1 dangling reference (first at offset %zu; --strict lists them)\n", arr);
    assert_non_null(strstr(r.out, summary));
    run_free(&r);
    char line[300];
    snprintf(line, sizeof line,
             "OBJECT ARRAY DUMP 0x5000 has element 0x9999, which is not in this heap dump at "
             "offset %zu",
             arr);
    expect_error(&b, 1, line);
    hb_free(&b);
}

static void duplicate_object(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    hb_prim_array(&b, 0x5000, 8, 1, 1);
    size_t second = b.len;
    hb_prim_array(&b, 0x5000, 8, 1, 1);
    hb_end(&b, at);
    char line[300];
    snprintf(line, sizeof line, "object 0x5000 dumped more than once at offset %zu", second);
    expect_error(&b, 1, line);
    hb_free(&b);
}

static void segment_grouping(void **state)
{
    (void)state;
    hb_buf b;
    hb_init(&b, "1.0.2", 8);
    size_t seg = b.len;
    hb_end(&b, hb_begin(&b, 0x1C));
    expect_error(&b, 1,
                 "file cut short: segmented heap dump started at offset 31 has no HEAP DUMP END "
                 "at offset 40");
    size_t dump = b.len;
    hb_end(&b, hb_begin(&b, 0x0C));
    hb_end(&b, hb_begin(&b, 0x2C));
    run_result r = verify(&b, 1);
    char want[600];
    snprintf(want, sizeof want,
             "hprof: error: t.hprof: HEAP DUMP while the segmented dump started at offset %zu "
             "has no HEAP DUMP END at offset %zu\n"
             "hprof: error: t.hprof: HEAP DUMP END without a preceding HEAP DUMP SEGMENT at "
             "offset %zu\n"
             "hprof: t.hprof: FAILED: 2 errors\n",
             seg, dump, dump + 9);
    assert_string_equal(r.err, want);
    run_free(&r);
    hb_free(&b);

    hb_init(&b, "1.0.1", 4);
    hb_end(&b, hb_begin(&b, 0x1C));
    hb_end(&b, hb_begin(&b, 0x2C));
    expect_error(&b, 1, "HEAP DUMP SEGMENT in a JAVA PROFILE 1.0.1 file at offset 31");
    hb_free(&b);
}

static void record_references(void **state)
{
    (void)state;
    hb_buf b;
    hb_init(&b, "1.0.1", 4);
    hb_load_class(&b, 1, 0x10, 0, 0x77);
    expect_error(&b, 1, "LOAD CLASS names class name string 0x77 with no UTF8 record at offset 31");
    hb_free(&b);

    hb_init(&b, "1.0.1", 4);
    uint64_t frame = 0x55;
    hb_trace(&b, 3, 0, 1, &frame);
    expect_error(&b, 1, "TRACE 3 frame 0 is 0x55 with no FRAME record at offset 31");
    hb_free(&b);

    hb_init(&b, "1.0.1", 4);
    hb_utf8(&b, 1, "a");
    hb_utf8(&b, 1, "b");
    expect_error(&b, 1, "duplicate UTF8 string ID 0x1 (first at offset 31) at offset 45");
    hb_free(&b);

    hb_init(&b, "1.0.1", 4);
    hb_utf8(&b, 1, "C");
    hb_load_class(&b, 7, 0x10, 0, 1);
    hb_frame(&b, 0x55, 1, 1, 0, 8, 1);
    expect_error(&b, 1, "FRAME names class serial 8 with no LOAD CLASS record at offset 70");
    hb_free(&b);
}

static void truncated_and_unknown(void **state)
{
    (void)state;
    hb_buf b;
    fx_build(&b, 8, 0, 0);
    b.len -= 3;
    run_result r = verify(&b, 1);
    assert_int_equal(r.rc, HP_EXIT_MALFORMED);
    assert_non_null(strstr(r.err, "runs past end of file"));
    run_free(&r);
    hb_free(&b);

    hb_init(&b, "1.0.2", 8);
    hb_end(&b, hb_begin(&b, 0x99));
    hb_utf8(&b, 1, "still checked");
    expect_error(&b, 1, "unknown record tag 0x99 at offset 31");
    hb_free(&b);
}

static void bad_sub_record(void **state)
{
    (void)state;
    hb_buf b;
    size_t at = start_custom(&b);
    size_t bad = b.len;
    hb_u1(&b, 0x77);
    hb_end(&b, at);
    char line[200];
    snprintf(line, sizeof line, "unknown heap dump sub-record tag 0x77 at offset %zu", bad);
    expect_error(&b, 1, line);
    hb_free(&b);
}

static void error_limit(void **state)
{
    (void)state;
    hb_buf b;
    hb_init(&b, "1.0.1", 4);
    for (int i = 0; i < 30; i++)
        hb_load_class(&b, (uint32_t)i + 1, 0x10, 0, 0x77);
    hp_opts o = run_opts();
    o.max_errors = 3;
    run_result r = run_cmd(hp_cmd_verify, &b, &o);
    int lines = 0;
    for (const char *p = r.err; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    assert_int_equal(lines, 4);
    assert_non_null(strstr(r.err, "FAILED: 30 errors"));
    run_free(&r);
    hb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(well_formed_variants),  cmocka_unit_test(instance_size_mismatch),
        cmocka_unit_test(class_size_mismatch),   cmocka_unit_test(missing_class_and_super),
        cmocka_unit_test(dangling_reference),    cmocka_unit_test(duplicate_object),
        cmocka_unit_test(segment_grouping),      cmocka_unit_test(record_references),
        cmocka_unit_test(truncated_and_unknown), cmocka_unit_test(bad_sub_record),
        cmocka_unit_test(error_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
