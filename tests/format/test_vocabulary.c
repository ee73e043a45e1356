/* The format's vocabulary (src/format) against the HPROF manual ("Binary
 * Dump Format"): the tables below are transcribed from it, field by field,
 * so a wrong value in the header fails here. */
#include "format/bytes.h"
#include "format/exit_codes.h"
#include "format/hprof_format.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define LEN(a) (sizeof(a) / sizeof(a)[0])

struct code {
    int code;
    uint8_t manual;
    const char *name;
};

static void test_header(void **state)
{
    (void)state;
    assert_string_equal(HP_VERSION_1_0_1, "JAVA PROFILE 1.0.1");
    assert_string_equal(HP_VERSION_1_0_2, "JAVA PROFILE 1.0.2");
    assert_int_equal(strncmp(HP_VERSION_1_0_2, HP_VERSION_PREFIX, strlen(HP_VERSION_PREFIX)), 0);
    /* 18 characters and a NUL, u4 ID size, u4 high and u4 low time words. */
    assert_int_equal(HP_HEADER_SIZE, 18 + 1 + 4 + 4 + 4);
    assert_int_equal(HP_HEADER_TAIL_SIZE, 4 + 4 + 4);
    assert_int_equal(HP_RECORD_HEADER_SIZE, 1 + 4 + 4); /* TAG, TIME, LENGTH */
    assert_true(hp_id_size_valid(4));
    assert_true(hp_id_size_valid(8));
    assert_false(hp_id_size_valid(0));
    assert_false(hp_id_size_valid(2));
    assert_false(hp_id_size_valid(16));
}

static void test_record_tags(void **state)
{
    (void)state;
    const struct code tags[] = {
        {HP_UTF8, 0x01, "UTF8"},
        {HP_LOAD_CLASS, 0x02, "LOAD CLASS"},
        {HP_UNLOAD_CLASS, 0x03, "UNLOAD CLASS"},
        {HP_FRAME, 0x04, "FRAME"},
        {HP_TRACE, 0x05, "TRACE"},
        {HP_ALLOC_SITES, 0x06, "ALLOC SITES"},
        {HP_HEAP_SUMMARY, 0x07, "HEAP SUMMARY"},
        {HP_START_THREAD, 0x0A, "START THREAD"},
        {HP_END_THREAD, 0x0B, "END THREAD"},
        {HP_HEAP_DUMP, 0x0C, "HEAP DUMP"},
        {HP_CPU_SAMPLES, 0x0D, "CPU SAMPLES"},
        {HP_CONTROL_SETTINGS, 0x0E, "CONTROL SETTINGS"},
        {HP_HEAP_DUMP_SEGMENT, 0x1C, "HEAP DUMP SEGMENT"},
        {HP_HEAP_DUMP_END, 0x2C, "HEAP DUMP END"},
    };
    for (size_t i = 0; i < LEN(tags); i++) {
        assert_int_equal(tags[i].code, tags[i].manual);
        assert_string_equal(hp_tag_name(tags[i].manual), tags[i].name);
    }
    assert_null(hp_tag_name(0x08)); /* unused by the manual */
    assert_null(hp_tag_name(0x10));
}

static void test_sub_tags(void **state)
{
    (void)state;
    const struct code subs[] = {
        {HP_ROOT_UNKNOWN, 0xFF, "ROOT UNKNOWN"},
        {HP_ROOT_JNI_GLOBAL, 0x01, "ROOT JNI GLOBAL"},
        {HP_ROOT_JNI_LOCAL, 0x02, "ROOT JNI LOCAL"},
        {HP_ROOT_JAVA_FRAME, 0x03, "ROOT JAVA FRAME"},
        {HP_ROOT_NATIVE_STACK, 0x04, "ROOT NATIVE STACK"},
        {HP_ROOT_STICKY_CLASS, 0x05, "ROOT STICKY CLASS"},
        {HP_ROOT_THREAD_BLOCK, 0x06, "ROOT THREAD BLOCK"},
        {HP_ROOT_MONITOR_USED, 0x07, "ROOT MONITOR USED"},
        {HP_ROOT_THREAD_OBJECT, 0x08, "ROOT THREAD OBJECT"},
        {HP_CLASS_DUMP, 0x20, "CLASS DUMP"},
        {HP_INSTANCE_DUMP, 0x21, "INSTANCE DUMP"},
        {HP_OBJ_ARRAY_DUMP, 0x22, "OBJECT ARRAY DUMP"},
        {HP_PRIM_ARRAY_DUMP, 0x23, "PRIMITIVE ARRAY DUMP"},
    };
    for (size_t i = 0; i < LEN(subs); i++) {
        assert_int_equal(subs[i].code, subs[i].manual);
        assert_string_equal(hp_sub_name(subs[i].manual), subs[i].name);
    }
    assert_null(hp_sub_name(0x09));
}

/* The manual's Basic Type table: code, Java type, value size. */
static void test_basic_types(void **state)
{
    (void)state;
    const struct {
        int code;
        uint8_t manual;
        const char *name;
        char descriptor;
        unsigned size; /* 0: an ID */
    } types[] = {
        {HP_T_OBJECT, 2, "Object", 'L', 0}, {HP_T_BOOLEAN, 4, "boolean", 'Z', 1},
        {HP_T_CHAR, 5, "char", 'C', 2},     {HP_T_FLOAT, 6, "float", 'F', 4},
        {HP_T_DOUBLE, 7, "double", 'D', 8}, {HP_T_BYTE, 8, "byte", 'B', 1},
        {HP_T_SHORT, 9, "short", 'S', 2},   {HP_T_INT, 10, "int", 'I', 4},
        {HP_T_LONG, 11, "long", 'J', 8},
    };
    for (size_t i = 0; i < LEN(types); i++) {
        uint8_t t = types[i].manual;
        assert_int_equal(types[i].code, t);
        assert_string_equal(hp_type_name(t), types[i].name);
        assert_int_equal(hp_type_of_descriptor(types[i].descriptor), t);
        assert_int_equal(hp_type_size(t, 4), types[i].size ? types[i].size : 4);
        assert_int_equal(hp_type_size(t, 8), types[i].size ? types[i].size : 8);
        assert_int_equal(hp_is_prim_type(t), t != 2);
        if (t != 2) assert_string_equal(hp_descriptor_keyword(types[i].descriptor), types[i].name);
    }
    assert_int_equal(hp_type_of_descriptor('['), 2);
    assert_int_equal(hp_type_of_descriptor('V'), 0);
    assert_null(hp_descriptor_keyword('L'));
    assert_null(hp_descriptor_keyword('['));
    assert_null(hp_descriptor_keyword('V'));
    for (uint8_t bad = 0; bad < 16; bad += 1)
        if (bad < 2 || bad == 3 || bad > 11) {
            assert_int_equal(hp_type_size(bad, 8), 0);
            assert_null(hp_type_name(bad));
            assert_false(hp_is_prim_type(bad));
        }
}

/* Record bodies as the manual lists their fields (u4 = 4, ID = id). */
static void test_record_layouts(void **state)
{
    (void)state;
    for (hp_id_size id = 4; id <= 8; id += 4) {
        assert_int_equal(hp_load_class_size(id), 4 + id + 4 + id);
        assert_int_equal(hp_frame_size(id), id + id + id + id + 4 + 4);
        assert_int_equal(hp_start_thread_size(id), 4 + id + 4 + id + id + id);
    }
    assert_int_equal(HP_SERIAL_RECORD_SIZE, 4);
    assert_int_equal(HP_HEAP_SUMMARY_SIZE, 4 + 4 + 8 + 8);
    assert_int_equal(HP_CONTROL_SETTINGS_SIZE, 4 + 2);
    assert_int_equal(HP_TRACE_FIXED_SIZE, 4 + 4 + 4);
    assert_int_equal(HP_ALLOC_SITES_FIXED_SIZE, 2 + 4 + 4 + 4 + 8 + 8 + 4);
    assert_int_equal(HP_ALLOC_SITE_SIZE, 1 + 4 + 4 + 4 + 4 + 4 + 4);
    assert_int_equal(HP_CPU_SAMPLES_FIXED_SIZE, 4 + 4);
    assert_int_equal(HP_CPU_SAMPLE_SIZE, 4 + 4);
    assert_int_equal(HP_CONTROL_ALLOC_TRACES, 0x1);
    assert_int_equal(HP_CONTROL_CPU_SAMPLING, 0x2);
    assert_int_equal(HP_SITES_INCREMENTAL, 0x1);
    assert_int_equal(HP_SITES_BY_ALLOC, 0x2);
    assert_int_equal(HP_SITES_FORCE_GC, 0x4);
}

/* Heap dump sub-record bodies (after the tag) as the manual lists them. */
static void test_sub_layouts(void **state)
{
    (void)state;
    for (hp_id_size id = 4; id <= 8; id += 4) {
        const struct {
            uint8_t tag;
            uint32_t size;
        } roots[] = {
            {0xFF, id}, {0x01, id + id}, {0x02, id + 4 + 4}, {0x03, id + 4 + 4}, {0x04, id + 4},
            {0x05, id}, {0x06, id + 4},  {0x07, id},         {0x08, id + 4 + 4},
        };
        for (size_t i = 0; i < LEN(roots); i++)
            assert_int_equal(hp_root_size(roots[i].tag, id), roots[i].size);
        assert_int_equal(hp_root_size(HP_CLASS_DUMP, id), 0);
        assert_int_equal(hp_root_size(HP_ROOT_INTERNED_STRING, id), 0);
        assert_int_equal(hp_sub_trace_at(id), id);
        /* class, trace, super, loader, signers, domain, 2 reserved, size */
        assert_int_equal(hp_class_dump_fixed_size(id), id + 4 + id + id + id + id + id + id + 4);
        assert_int_equal(hp_instance_dump_fixed_size(id), id + 4 + id + 4);
        assert_int_equal(hp_instance_dump_count_at(id), id + 4 + id);
        assert_int_equal(hp_array_dump_count_at(id), id + 4);
        assert_int_equal(hp_obj_array_dump_fixed_size(id), id + 4 + 4 + id);
        assert_int_equal(hp_prim_array_dump_fixed_size(id), id + 4 + 4 + 1);
    }
}

/* The documented exit codes: the agent's as the JDK 8 agent's, the front
 * end's as in `hprof --help`. */
/* Every HPROF field is big-endian: the file's first bytes of a u4 are its
 * most significant. */
static void test_big_endian(void **state)
{
    (void)state;
    uint8_t b[8];
    hp_put_be32(b, 0x0A0B0C0Du);
    assert_memory_equal(b, "\x0A\x0B\x0C\x0D", 4);
    assert_int_equal(hp_be32(b), 0x0A0B0C0Du);
    assert_int_equal(hp_be16(b), 0x0A0B);
    hp_put_be64(b, 0x0102030405060708ull);
    assert_memory_equal(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    assert_true(hp_be64(b) == 0x0102030405060708ull);
    hp_put_be32(b, 0xFFFFFFFFu);
    assert_int_equal(hp_be32(b), 0xFFFFFFFFu);
}

static void test_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(HP_AGENT_EXIT_USAGE, 1);
    assert_int_equal(HP_AGENT_EXIT_FATAL, 9);
    const int front_end[] = {HP_EXIT_OK, HP_EXIT_MALFORMED, HP_EXIT_USAGE, HP_EXIT_IO,
                             HP_EXIT_NODATA};
    for (int i = 0; i < 5; i++)
        assert_int_equal(front_end[i], i);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),         cmocka_unit_test(test_record_tags),
        cmocka_unit_test(test_sub_tags),       cmocka_unit_test(test_basic_types),
        cmocka_unit_test(test_record_layouts), cmocka_unit_test(test_sub_layouts),
        cmocka_unit_test(test_exit_codes),     cmocka_unit_test(test_big_endian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
