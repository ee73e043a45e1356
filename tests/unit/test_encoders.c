/* The core records of both encoders, byte for byte, through the writer. */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/modes/monitor/monitor_encoder.h"
#include "agent/output/ascii/prelude.h"
#include "agent/output/encoder.h"
#include "agent/tables/trace.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static FILE *sink;

/* Routes the output stream into a temporary file. */
static int setup(void **state)
{
    (void)state;
    sink = tmpfile();
    hp_out_open(dup(fileno(sink)), false, "test sink", NULL);
    char err[128];
    hp_options_parse("depth=7,cpu=samples", &hp.opt, err, sizeof err);
    hp.start_ms = 0x0102030405060708ull;
    hp.start_ns = hp_mono_ns();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hp_out_close();
    fclose(sink);
    return 0;
}

/* Everything written since the last call. */
static size_t take(unsigned char *buf, size_t cap)
{
    static long done;
    hp_out_flush();
    fseek(sink, done, SEEK_SET);
    size_t n = fread(buf, 1, cap, sink);
    done += (long)n;
    return n;
}

static uint32_t u4(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t u8(const unsigned char *p)
{
    return (uint64_t)u4(p) << 32 | u4(p + 4);
}

/* Checks a record header and returns a pointer to its body. */
static const unsigned char *record(const unsigned char *p, int tag, uint32_t len)
{
    assert_int_equal(p[0], tag);
    assert_int_equal(u4(p + 5), len);
    return p + 9;
}

static void test_binary(void **state)
{
    (void)state;
    unsigned char b[4096];
    hp_encoder_select(HP_FORMAT_BINARY);
    assert_true(hp_output_binary());

    hp_encoder()->header();
    size_t n = take(b, sizeof b);
    assert_int_equal(n, 19 + 4 + 8 + 9 + 6);
    assert_memory_equal(b, "JAVA PROFILE 1.0.2\0", 19);
    assert_int_equal(u4(b + 19), 8);
    assert_int_equal(u8(b + 23), 0x0102030405060708ull);
    const unsigned char *body = record(b + 31, 0x0E, 6);
    assert_int_equal(u4(body), 0x2); /* cpu sampling, no heap */
    assert_int_equal(body[4] << 8 | body[5], 7);

    struct hp_thread_view t = {200001, 0xabcdef, HP_TRACE_EMPTY, "main", "main", "system"};
    hp_encoder()->thread_start(&t);
    n = take(b, sizeof b);
    /* UTF8 "main" (once for both uses), UTF8 "system", then START THREAD */
    const unsigned char *p = b;
    body = record(p, 0x01, 8 + 4);
    uint64_t main_id = u8(body);
    assert_memory_equal(body + 8, "main", 4);
    p = body + 12;
    body = record(p, 0x01, 8 + 6);
    uint64_t system_id = u8(body);
    p = body + 14;
    body = record(p, 0x0A, 4 + 8 + 4 + 8 * 3);
    assert_int_equal(u4(body), 200001);
    assert_int_equal(u8(body + 4), 0xabcdef);
    assert_int_equal(u4(body + 12), HP_TRACE_EMPTY);
    assert_int_equal(u8(body + 16), main_id);
    assert_int_equal(u8(body + 24), main_id);
    assert_int_equal(u8(body + 32), system_id);
    assert_int_equal((size_t)(body + 40 - b), n);

    hp_encoder()->thread_end(200001);
    n = take(b, sizeof b);
    assert_int_equal(n, 13);
    assert_int_equal(u4(record(b, 0x0B, 4)), 200001);

    struct hp_class c = {100003, 0x77, "[I", "int[]", NULL, false, 0, false};
    hp_encoder()->class_load(&c);
    hp_encoder()->class_unload(&c);
    n = take(b, sizeof b);
    body = record(b, 0x01, 8 + 5);
    uint64_t name_id = u8(body);
    body = record(body + 13, 0x02, 4 + 8 + 4 + 8);
    assert_int_equal(u4(body), 100003);
    assert_int_equal(u8(body + 4), 0x77);
    assert_int_equal(u4(body + 12), HP_TRACE_EMPTY);
    assert_int_equal(u8(body + 16), name_id);
    assert_int_equal(u4(record(body + 24, 0x03, 4)), 100003);
    assert_int_equal(n, 9 + 13 + 9 + 24 + 9 + 4);

    hp_trace_table_init(); /* trace 300000 is the empty trace */
    hp_encoder()->trace(hp_trace_get(HP_TRACE_EMPTY));
    n = take(b, sizeof b);
    body = record(b, 0x05, 12);
    assert_int_equal(u4(body), HP_TRACE_EMPTY);
    assert_int_equal(u4(body + 4), 0);
    assert_int_equal(u4(body + 8), 0);
}

static void test_ascii(void **state)
{
    (void)state;
    char b[8192];
    hp_encoder_select(HP_FORMAT_ASCII);
    assert_false(hp_output_binary());
    hp_encoder()->header();
    size_t n = take((unsigned char *)b, sizeof b - 1);
    b[n] = '\0';
    assert_memory_equal(b, "JAVA PROFILE 1.0.1, created ", 28);
    char *eol = strchr(b, '\n');
    assert_non_null(eol);
    assert_int_equal(eol[1], '\n'); /* ctime's newline leaves an empty line */
    assert_memory_equal(eol + 2, hp_ascii_prelude, strlen(hp_ascii_prelude));
    assert_string_equal(eol + 2 + strlen(hp_ascii_prelude), "\n--------\n\n");

    struct hp_thread_view t = {200002, 0x5f, HP_TRACE_EMPTY, "worker-1", NULL, NULL};
    hp_encoder()->thread_start(&t);
    hp_encoder()->thread_end(200002);
    hp_encoder()->trace(hp_trace_get(HP_TRACE_EMPTY));
    n = take((unsigned char *)b, sizeof b - 1);
    b[n] = '\0';
    assert_string_equal(b, "THREAD START (obj=5f, id = 200002, name=\"worker-1\", group=\"\")\n"
                           "THREAD END (id = 200002)\n"
                           "TRACE 300000:\n\t<empty>\n");
}

/* MONITOR TIME appears from one whole millisecond of contention on. */
static void test_monitor_time_threshold(void **state)
{
    (void)state;
    unsigned char buf[4096];
    take(buf, sizeof buf);
    struct hp_monitor_row row = {
        .trace = 300001, .class_name = "Lock", .time_ns = 999999, .hits = 3};
    hp_monitor_ascii.time_table(&row, 1, row.time_ns, 0.0001);
    assert_int_equal(take(buf, sizeof buf), 0);
    row.time_ns = 1000000;
    hp_monitor_ascii.time_table(&row, 1, row.time_ns, 0.0001);
    size_t n = take(buf, sizeof buf);
    buf[n] = 0;
    assert_non_null(strstr((char *)buf, "MONITOR TIME BEGIN (total = 1 ms)"));
    assert_non_null(strstr((char *)buf, "   1 100.00% 100.00%       3 300001 Lock (Java)\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_binary), cmocka_unit_test(test_ascii),
                                       cmocka_unit_test(test_monitor_time_threshold)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
