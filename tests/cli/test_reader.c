/* Reader unit tests: header, records, heap sub-records, names, ID map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "cli/readers/idmap.h"
#include "cli/readers/reader.h"
#include "fixture.h"

static void header_ok(void **state)
{
    (void)state;
    for (uint32_t id = 4; id <= 8; id += 4) {
        hb_buf b;
        hp_file f;
        hp_error e;
        hb_init(&b, "1.0.2", id);
        assert_int_equal(hp_open_mem(&f, "x", b.data, b.len, &e), 0);
        assert_int_equal(f.id_size, id);
        assert_string_equal(f.version, "JAVA PROFILE 1.0.2");
        assert_int_equal(f.timestamp_ms, 1000000000000ull);
        assert_int_equal(f.first_record, 31);
        uint64_t pos = f.first_record;
        hp_record r;
        assert_int_equal(hp_next_record(&f, &pos, &r, &e), 0);
        hb_free(&b);
    }
}

static void expect_header_error(const uint8_t *data, size_t len, const char *what, uint64_t at)
{
    hp_file f;
    hp_error e;
    assert_int_equal(hp_open_mem(&f, "x", data, len, &e), -1);
    assert_string_equal(e.what, what);
    assert_int_equal(e.offset, at);
}

static void header_errors(void **state)
{
    (void)state;
    hb_buf b;
    expect_header_error((const uint8_t *)"", 0,
                        "not an HPROF file (no \"JAVA PROFILE 1.0.x\" header)", 0);
    expect_header_error((const uint8_t *)"JAVA PROFILE 1.0.3", 19,
                        "unsupported format version \"JAVA PROFILE 1.0.3\"", 0);
    expect_header_error((const uint8_t *)"JAVA PROFILE 1.0.2", 18,
                        "header string not NUL-terminated", 0);
    hb_init(&b, "1.0.1", 3);
    expect_header_error(b.data, b.len, "bad ID size 3 (must be 4 or 8)", 19);
    expect_header_error(b.data, 25, "truncated header", 19);
    hb_free(&b);
}

static void record_bounds(void **state)
{
    (void)state;
    hb_buf b;
    hp_file f;
    hp_error e;
    hp_record r;
    hb_init(&b, "1.0.1", 4);
    hb_utf8(&b, 1, "abc");
    assert_int_equal(hp_open_mem(&f, "x", b.data, b.len - 1, &e), 0);
    uint64_t pos = f.first_record;
    assert_int_equal(hp_next_record(&f, &pos, &r, &e), -1);
    assert_string_equal(e.what,
                        "file cut short: record length 7 runs past end of file (6 bytes left)");
    assert_int_equal(e.offset, 31);
    assert_int_equal(hp_open_mem(&f, "x", b.data, 35, &e), 0);
    pos = f.first_record;
    assert_int_equal(hp_next_record(&f, &pos, &r, &e), -1);
    assert_string_equal(e.what, "file cut short: truncated record header (4 bytes left, need 9)");
    hb_free(&b);
}

static void record_lengths(void **state)
{
    (void)state;
    hb_buf b;
    hp_file f;
    hp_error e;
    hp_record r;
    hp_rec o;
    hb_init(&b, "1.0.1", 8);
    size_t at = hb_begin(&b, 0x02); /* LOAD CLASS one byte short */
    hb_u4(&b, 1);
    hb_id(&b, 2);
    hb_u4(&b, 3);
    hb_u4(&b, 0);
    hb_u2(&b, 0);
    hb_u1(&b, 0);
    hb_end(&b, at);
    at = hb_begin(&b, 0x05); /* TRACE claiming 2 frames, carrying 1 */
    hb_u4(&b, 1);
    hb_u4(&b, 0);
    hb_u4(&b, 2);
    hb_id(&b, 9);
    hb_end(&b, at);
    hb_end(&b, hb_begin(&b, 0x42));
    assert_int_equal(hp_open_mem(&f, "x", b.data, b.len, &e), 0);
    uint64_t pos = f.first_record;
    assert_int_equal(hp_next_record(&f, &pos, &r, &e), 1);
    assert_int_equal(hp_parse_record(&f, &r, &o, &e), -1);
    assert_string_equal(e.what, "LOAD CLASS record length 23, expected 24");
    assert_int_equal(hp_next_record(&f, &pos, &r, &e), 1);
    assert_int_equal(hp_parse_record(&f, &r, &o, &e), -1);
    assert_string_equal(e.what, "TRACE record length 20, expected 28");
    assert_int_equal(hp_next_record(&f, &pos, &r, &e), 1);
    assert_int_equal(hp_parse_record(&f, &r, &o, &e), -1);
    assert_string_equal(e.what, "unknown record tag 0x42");
    assert_int_equal(e.offset, r.offset);
    hb_free(&b);
}

static void decode_fixture_records(void **state)
{
    (void)state;
    hb_buf b;
    hp_file f;
    hp_error e;
    hp_record r;
    hp_rec o;
    unsigned seen = 0;
    fx_build(&b, 4, 0, 0);
    assert_int_equal(hp_open_mem(&f, "x", b.data, b.len, &e), 0);
    uint64_t pos = f.first_record;
    while (hp_next_record(&f, &pos, &r, &e) == 1) {
        assert_int_equal(hp_parse_record(&f, &r, &o, &e), 0);
        if (r.tag == 0x05 && o.trace.nframes == 2) {
            assert_int_equal(o.trace.serial, 300001);
            assert_int_equal(hp_trace_frame(&f, &o, 1), 0x7002);
            seen |= 1;
        } else if (r.tag == 0x06) {
            hp_site s;
            hp_site_at(&o, 1, &s);
            assert_int_equal(s.array_type, 5);
            assert_int_equal(s.class_serial, 100004);
            assert_int_equal(s.alloc_instances, 1);
            seen |= 2;
        } else if (r.tag == 0x0D) {
            uint32_t count, trace;
            hp_sample_at(&o, 0, &count, &trace);
            assert_int_equal(count, 7);
            assert_int_equal(trace, 300001);
            seen |= 4;
        } else if (r.tag == 0x04 && o.frame.id == 0x7002) {
            assert_int_equal(o.frame.line, -1);
            seen |= 8;
        }
    }
    assert_int_equal(seen, 15);
    hb_free(&b);
}

/* Parses a one-record heap dump made of `sub`, returning hp_heap_next's status. */
static int parse_sub(const hb_buf *sub, hp_sub *s, hp_error *e)
{
    static hb_buf b;
    static hp_file f;
    hb_free(&b);
    hb_init(&b, "1.0.2", sub->id_size);
    size_t at = hb_begin(&b, 0x1C);
    hb_bytes(&b, sub->data, sub->len);
    hb_end(&b, at);
    if (hp_open_mem(&f, "x", b.data, b.len, e)) return -9;
    uint64_t pos = f.first_record;
    hp_record r;
    hp_heap_iter it;
    hp_next_record(&f, &pos, &r, e);
    hp_heap_begin(&r, &it);
    int rc = hp_heap_next(&f, &it, s, e);
    return rc == 1 && it.p != it.end ? -8 : rc; /* -8: did not consume the body */
}

static void heap_roots_all_kinds(void **state)
{
    (void)state;
    /* tag, number of u4 fields after the object ID, extra ID after it */
    static const struct {
        uint8_t tag, u4s, ids;
    } kinds[] = {{0xFF, 0, 0}, {0x01, 0, 1}, {0x02, 2, 0}, {0x03, 2, 0}, {0x04, 1, 0}, {0x05, 0, 0},
                 {0x06, 1, 0}, {0x07, 0, 0}, {0x08, 2, 0}, {0x89, 0, 0}, {0x8A, 0, 0}, {0x8B, 0, 0},
                 {0x8C, 0, 0}, {0x8D, 0, 0}, {0x8E, 2, 0}, {0x90, 0, 0}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        hb_buf sub = {.id_size = 8};
        hp_sub s;
        hp_error e;
        hb_u1(&sub, kinds[i].tag);
        hb_id(&sub, 0xABCDEF0123ull);
        for (int k = 0; k < kinds[i].ids; k++)
            hb_id(&sub, 77);
        for (int k = 0; k < kinds[i].u4s; k++)
            hb_u4(&sub, 200001 + k);
        assert_int_equal(parse_sub(&sub, &s, &e), 1);
        assert_int_equal(s.tag, kinds[i].tag);
        assert_int_equal(s.id, 0xABCDEF0123ull);
        if (kinds[i].u4s) assert_int_equal(s.thread, 200001);
        if (kinds[i].u4s == 2) assert_int_equal(s.depth, 200002);
        if (kinds[i].ids) assert_int_equal(s.ref, 77);
        /* Every byte short of the full record is a truncation error. */
        size_t full = sub.len;
        for (sub.len = 1; sub.len < full; sub.len++)
            assert_int_equal(parse_sub(&sub, &s, &e), -1);
        hb_free(&sub);
    }
}

static void heap_dumps_and_info(void **state)
{
    (void)state;
    hb_buf sub = {.id_size = 4};
    hp_sub s;
    hp_error e;
    static const uint64_t names[] = {5, 6};
    static const uint8_t types[] = {2, 7};
    hb_class_dump(&sub, 0x10, 0x20, 12, 2, names, types);
    assert_int_equal(parse_sub(&sub, &s, &e), 1);
    assert_int_equal(s.id, 0x10);
    assert_int_equal(s.ref, 0x20);
    assert_int_equal(s.instance_size, 12);
    assert_int_equal(s.nfields, 2);
    hp_file f = {.id_size = 4};
    hp_field fl;
    const uint8_t *p = s.fields;
    hp_next_field(&f, &p, &fl);
    hp_next_field(&f, &p, &fl);
    assert_int_equal(fl.name_id, 6);
    assert_int_equal(fl.type, 7);
    hb_free(&sub);

    sub = (hb_buf){.id_size = 4};
    hb_u1(&sub, 0xFE); /* HEAP DUMP INFO */
    hb_u4(&sub, 3);
    hb_id(&sub, 9);
    assert_int_equal(parse_sub(&sub, &s, &e), 1);
    assert_int_equal(s.thread, 3);
    assert_int_equal(s.id, 9);
    hb_free(&sub);

    sub = (hb_buf){.id_size = 4};
    hb_u1(&sub, 0xC3); /* PRIMITIVE ARRAY NODATA */
    hb_id(&sub, 9);
    hb_u4(&sub, 0);
    hb_u4(&sub, 1000);
    hb_u1(&sub, 10);
    assert_int_equal(parse_sub(&sub, &s, &e), 1);
    assert_int_equal(s.count, 1000);
    assert_int_equal(s.data_len, 0);
    hb_free(&sub);

    sub = (hb_buf){.id_size = 4};
    hb_prim_array(&sub, 9, 11, 3, 8);
    assert_int_equal(parse_sub(&sub, &s, &e), 1);
    assert_int_equal(s.data_len, 24);
    sub.data[sub.len - 25] = 3; /* element type 3 does not exist */
    assert_int_equal(parse_sub(&sub, &s, &e), -1);
    assert_string_equal(e.what, "PRIMITIVE ARRAY DUMP has invalid element type 3");
    hb_free(&sub);
}

static void heap_errors(void **state)
{
    (void)state;
    hb_buf sub = {.id_size = 8};
    hp_sub s;
    hp_error e;
    hb_u1(&sub, 0x42);
    assert_int_equal(parse_sub(&sub, &s, &e), -1);
    assert_string_equal(e.what, "unknown heap dump sub-record tag 0x42");
    assert_int_equal(e.offset, 40); /* 31 header + 9 record header */
    hb_free(&sub);

    sub = (hb_buf){.id_size = 8};
    hb_u1(&sub, 0x1f);
    hb_u1(&sub, 0x8b);
    {
        hp_file f;
        assert_int_equal(hp_open_mem(&f, "x", sub.data, sub.len, &e), -1);
        /* Only hp_open() inflates (into a temporary file); memory buffers are taken as is. */
        assert_string_equal(e.what, "gzip-compressed data (only files are inflated)");
    }
    hb_free(&sub);

    sub = (hb_buf){.id_size = 8};
    hb_instance(&sub, 1, 0, 2, "abcd", 4);
    sub.len -= 2;
    assert_int_equal(parse_sub(&sub, &s, &e), -1);
    assert_string_equal(e.what,
                        "INSTANCE DUMP truncated in field values (2 bytes left in the HEAP DUMP "
                        "SEGMENT record at offset 31, need 4)");
    hb_free(&sub);

    sub = (hb_buf){.id_size = 8};
    static const uint64_t names[] = {5};
    static const uint8_t types[] = {1};
    hb_class_dump(&sub, 0x10, 0, 8, 1, names, types);
    assert_int_equal(parse_sub(&sub, &s, &e), -1);
    assert_string_equal(e.what, "CLASS DUMP has invalid basic type 1 in instance field type");
    hb_free(&sub);

    /* A huge element count must fail cleanly, not overflow. */
    sub = (hb_buf){.id_size = 8};
    hb_u1(&sub, 0x22);
    hb_id(&sub, 1);
    hb_u4(&sub, 0);
    hb_u4(&sub, 0xFFFFFFFFu);
    hb_id(&sub, 2);
    assert_int_equal(parse_sub(&sub, &s, &e), -1);
    assert_string_equal(e.what,
                        "OBJECT ARRAY DUMP truncated in elements (0 bytes left in the HEAP DUMP "
                        "SEGMENT record at offset 31, need 34359738360)");
    hb_free(&sub);
}

static void class_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"java/lang/String", "java.lang.String"},
        {"[I", "int[]"},
        {"[[Ljava/lang/Object;", "java.lang.Object[][]"},
        {"[Z", "boolean[]"},
        {"char[]", "char[]"},
        {"java.util.HashMap$Node", "java.util.HashMap$Node"},
        {"[", "[]"},
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hp_java_class_name((const uint8_t *)cases[i][0], strlen(cases[i][0]), out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
    hp_java_class_name((const uint8_t *)"[[Ljava/lang/Object;", 20, out, 8);
    assert_string_equal(out, "java.la");
}

static void idmap_grows(void **state)
{
    (void)state;
    hp_idmap m = {0};
    for (uint64_t k = 0; k < 100000; k++)
        assert_int_equal(hp_idmap_put(&m, k * 8, k), 1);
    assert_int_equal(hp_idmap_put(&m, 8, 42), 0);
    assert_int_equal(*hp_idmap_get(&m, 8), 42);
    assert_int_equal(*hp_idmap_get(&m, 99999 * 8), 99999);
    assert_null(hp_idmap_get(&m, 3));
    assert_int_equal(m.len, 100000);
    hp_idmap_free(&m);
    assert_null(hp_idmap_get(&m, 0));
    /* Keys differing only in their top bits must still spread (no quadratic probing). */
    for (uint64_t k = 1; k <= 200000; k++)
        assert_int_equal(hp_idmap_put(&m, k << 44, k), 1);
    assert_int_equal(*hp_idmap_get(&m, 123456ull << 44), 123456);
    hp_idmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_ok),
        cmocka_unit_test(header_errors),
        cmocka_unit_test(record_bounds),
        cmocka_unit_test(record_lengths),
        cmocka_unit_test(decode_fixture_records),
        cmocka_unit_test(heap_roots_all_kinds),
        cmocka_unit_test(heap_dumps_and_info),
        cmocka_unit_test(heap_errors),
        cmocka_unit_test(class_names),
        cmocka_unit_test(idmap_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
