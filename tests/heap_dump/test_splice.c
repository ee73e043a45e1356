/* Unit tests of splice.c on a small hand-made dump in HotSpot's layout:
 * serials remapped, names interned, dangling array elements nulled (in
 * place at the end while copying a growing file, inline in two passes), and
 * a dump that fails midway leaves no heap dump record in the output. The
 * JVM's file taken in place as the output, or refused when IDs could meet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/io/writer.h"
#include "agent/modes/heap_dump/splice.h"
#include "agent/tables/objid.h"

struct bytes {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct bytes *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}
static void u1(struct bytes *b, uint8_t v)
{
    put(b, &v, 1);
}
static void u2(struct bytes *b, uint16_t v)
{
    u1(b, (uint8_t)(v >> 8));
    u1(b, (uint8_t)v);
}
static void u4(struct bytes *b, uint32_t v)
{
    u2(b, (uint16_t)(v >> 16));
    u2(b, (uint16_t)v);
}
static void u8(struct bytes *b, uint64_t v)
{
    u4(b, (uint32_t)(v >> 32));
    u4(b, (uint32_t)v);
}
static uint32_t be4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be8(const uint8_t *p)
{
    return (uint64_t)be4(p) << 32 | be4(p + 4);
}

static void rec(struct bytes *b, uint8_t tag, const struct bytes *body)
{
    u1(b, tag);
    u4(b, 0);
    u4(b, (uint32_t)body->len);
    put(b, body->p, body->len);
}

static void utf8(struct bytes *b, uint64_t id, const char *s)
{
    struct bytes r = {0};
    u8(&r, id);
    put(&r, s, strlen(s));
    rec(b, 0x01, &r);
    free(r.p);
}

/* Objects: Foo instances 0x1000 and 0x1010 (field x), an Object[3] at
 * 0x1008 citing 0x1010 before its record, 0x5000 (never dumped) and null,
 * an int[2] at 0x1018, and a long[pad_longs] at 0x1020 if pad_longs > 0.
 * Thread 1 with trace 2 of one frame. */
/* HotSpot's UTF8 IDs are addresses; the small ones (0x900...) could meet
 * ours and keep a dump from being taken in place. */
#define SMALL_NAMES 0x900u
#define JVM_NAMES 0x7f0000000900u

static struct bytes make_dump(uint8_t bad_subrecord, uint32_t pad_longs, uint64_t names)
{
    struct bytes b = {0}, r = {0};
    put(&b, "JAVA PROFILE 1.0.2", 19);
    u4(&b, 8);
    u8(&b, 0);
    utf8(&b, names, "Foo");
    utf8(&b, names + 1, "x");
    utf8(&b, names + 2, "main");
    utf8(&b, names + 3, "()V");
    utf8(&b, names + 4, "Foo.java");
    utf8(&b, names + 5, "[Ljava/lang/Object;");
    u4(&r, 1), u8(&r, 0x2000), u4(&r, 1), u8(&r, names);
    rec(&b, 0x02, &r);
    r.len = 0;
    u4(&r, 2), u8(&r, 0x2100), u4(&r, 1), u8(&r, names + 5);
    rec(&b, 0x02, &r);
    r.len = 0;
    u8(&r, 1), u8(&r, names + 2), u8(&r, names + 3), u8(&r, names + 4), u4(&r, 1), u4(&r, 7);
    rec(&b, 0x04, &r);
    r.len = 0;
    u4(&r, 1), u4(&r, 0), u4(&r, 0);
    rec(&b, 0x05, &r);
    r.len = 0;
    u4(&r, 2), u4(&r, 1), u4(&r, 1), u8(&r, 1);
    rec(&b, 0x05, &r);
    r.len = 0;
    for (uint64_t cls = 0x2000; cls <= 0x2100; cls += 0x100) {
        u1(&r, 0x20), u8(&r, cls), u4(&r, 1);
        for (int i = 0; i < 6; i++)
            u8(&r, 0);
        u4(&r, cls == 0x2000 ? 8 : 0);
        u2(&r, 0), u2(&r, 0);
        u2(&r, cls == 0x2000 ? 1 : 0);
        if (cls == 0x2000) u8(&r, names + 1), u1(&r, 2);
    }
    u1(&r, 0x08), u8(&r, 0x1000), u4(&r, 1), u4(&r, 2);
    u1(&r, 0x03), u8(&r, 0x1010), u4(&r, 1), u4(&r, 0);
    u1(&r, 0x21), u8(&r, 0x1000), u4(&r, 1), u8(&r, 0x2000), u4(&r, 8), u8(&r, 0x1010);
    u1(&r, 0x22), u8(&r, 0x1008), u4(&r, 1), u4(&r, 3), u8(&r, 0x2100);
    u8(&r, 0x1010), u8(&r, 0x5000), u8(&r, 0);
    if (bad_subrecord) u1(&r, bad_subrecord);
    u1(&r, 0x21), u8(&r, 0x1010), u4(&r, 1), u8(&r, 0x2000), u4(&r, 8), u8(&r, 0);
    u1(&r, 0x23), u8(&r, 0x1018), u4(&r, 1), u4(&r, 2), u1(&r, 10), u4(&r, 1), u4(&r, 2);
    if (pad_longs) {
        u1(&r, 0x23), u8(&r, 0x1020), u4(&r, 1), u4(&r, pad_longs), u1(&r, 11);
        for (uint32_t i = 0; i < pad_longs; i++)
            u8(&r, i);
    }
    rec(&b, 0x1C, &r);
    r.len = 0;
    rec(&b, 0x2C, &r);
    free(r.p);
    return b;
}

static FILE *input_file(const struct bytes *b, size_t n)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(b->p, 1, n, f), n);
    fflush(f);
    return f;
}

static FILE *output;

static void open_output(void)
{
    output = tmpfile();
    assert_non_null(output);
    hp_out_open(dup(fileno(output)), false, "test output", NULL);
}

static struct bytes close_output(void)
{
    hp_out_close();
    struct bytes out = {0};
    uint8_t chunk[4096];
    size_t n;
    rewind(output);
    while ((n = fread(chunk, 1, sizeof chunk, output)) > 0)
        put(&out, chunk, n);
    fclose(output);
    return out;
}

/* What a spliced output holds, found by walking its records. */
struct found {
    uint32_t trace_serial, trace_thread, class_serial, dummy_traces;
    uint64_t x_name, field_name, segments, frame_id, trace_frame;
    uint32_t root_thread, root_trace, frame_root_thread;
    uint64_t elems[3];
};

static struct found walk(const struct bytes *out)
{
    struct found f = {0};
    for (size_t pos = 0; pos < out->len;) {
        const uint8_t *r = out->p + pos, *b = r + 9;
        uint32_t len = be4(r + 5);
        if (r[0] == 0x01 && len == 9 && b[8] == 'x') f.x_name = be8(b);
        if (r[0] == 0x02 && f.class_serial == 0) f.class_serial = be4(b);
        if (r[0] == 0x04) f.frame_id = be8(b);
        if (r[0] == 0x05 && be4(b) == 1) f.dummy_traces++;
        if (r[0] == 0x05 && be4(b) != 1) {
            f.trace_serial = be4(b);
            f.trace_thread = be4(b + 4);
            f.trace_frame = be8(b + 12);
        }
        if (r[0] == 0x1C) {
            f.segments++;
            /* Layout as made: class dumps of 80 and 71 bytes, the first
             * one's field at 71; two roots (17 bytes each), an instance (33),
             * the array (25 + elements). */
            f.field_name = be8(b + 71);
            const uint8_t *root = b + 80 + 71;
            f.root_thread = be4(root + 9);
            f.root_trace = be4(root + 13);
            f.frame_root_thread = be4(root + 17 + 9);
            const uint8_t *arr = root + 34 + 33 + 25;
            for (int i = 0; i < 3; i++)
                f.elems[i] = be8(arr + 8 * i);
        }
        pos += 9 + len;
    }
    return f;
}

/* Serials and frames renumbered, roots following them, the dangling element
 * nulled: in a copy and in place alike. */
static void check_numbers(const struct found *f)
{
    assert_int_equal(f->segments, 1);
    assert_true(f->class_serial > 0x40000000u);
    assert_true(f->trace_serial > 0x40000000u);
    assert_true(f->frame_id > (uint64_t)1 << 32);
    assert_int_equal(f->trace_frame, f->frame_id);
    assert_int_equal(f->root_trace, f->trace_serial);
    assert_int_equal(f->root_thread, f->trace_thread);
    assert_int_equal(f->frame_root_thread, f->trace_thread);
    assert_int_equal(f->elems[0], 0x1010);
    assert_int_equal(f->elems[1], 0);
    assert_int_equal(f->elems[2], 0);
}

static void check_spliced(const struct found *f)
{
    check_numbers(f);
    /* Our string table writes each name once per run: later outputs cite
     * the first one's UTF8. */
    static uint64_t x_name;
    if (x_name == 0) x_name = f->x_name;
    assert_true(x_name != 0 && f->field_name == x_name);
}

static enum hd_splice_result run(FILE *in, bool overlap, int jvm, struct hd_splice *sp)
{
    /* In place is asked for each time: the small names refuse it. */
    *sp = (struct hd_splice){.fd = fileno(in), .inplace = overlap, .overlap = overlap};
    atomic_init(&sp->jvm, jvm);
    return hd_splice_run(sp);
}

static void test_overlap_then_two_passes(void **state)
{
    (void)state;
    struct bytes dump = make_dump(0, 0, SMALL_NAMES);
    FILE *in = input_file(&dump, dump.len);
    struct hd_splice sp;
    open_output();
    assert_int_equal(run(in, true, HD_JVM_DONE, &sp), HD_SPLICE_OK);
    assert_false(sp.adopted);
    struct bytes out = close_output();
    struct found f = walk(&out);
    check_spliced(&f);
    assert_int_equal(f.dummy_traces, 1);
    assert_int_equal(sp.objects, 6);
    assert_int_equal(sp.nulled, 1);
    free(out.p);

    /* Socket-style, in two passes: same result, new numbers, and the dummy
     * trace (already in the output) is not repeated. */
    open_output();
    assert_int_equal(run(in, false, HD_JVM_DONE, &sp), HD_SPLICE_OK);
    out = close_output();
    struct found g = walk(&out);
    check_spliced(&g);
    assert_int_equal(g.dummy_traces, 0);
    assert_int_equal(sp.nulled, 1);
    assert_true(g.class_serial > f.class_serial);
    assert_true(g.trace_serial > f.trace_serial);
    assert_true(g.frame_id > f.frame_id);
    free(out.p);
    fclose(in);
    free(dump.p);
}

struct grower {
    FILE *f;
    const struct bytes *dump;
    struct hd_splice *sp;
    size_t cut;
};

/* Plays the JVM: writes the dump in small pieces, pausing long enough in
 * the middle of the first CLASS DUMP for the copy to see half of it, then
 * says it is done. */
static void *grow(void *arg)
{
    struct grower *g = arg;
    size_t at = 0, cut = g->cut;
    while (at < g->dump->len) {
        size_t n = g->dump->len - at < 100 ? g->dump->len - at : 100;
        if (at < cut && at + n > cut) n = cut - at;
        assert_int_equal(fwrite(g->dump->p + at, 1, n, g->f), n);
        fflush(g->f);
        at += n;
        struct timespec ts = {0, at == cut ? 50000000 : 200000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&g->sp->jvm, HD_JVM_DONE);
    return NULL;
}

static void test_copies_a_growing_file(void **state)
{
    (void)state;
    struct bytes dump = make_dump(0, 0, SMALL_NAMES);
    FILE *in = tmpfile();
    assert_non_null(in);
    struct hd_splice sp = {.fd = fileno(in), .overlap = true};
    atomic_init(&sp.jvm, HD_JVM_WRITING);
    /* The first CLASS DUMP (80 bytes; its fixed part 71) begins right after
     * the segment header: the copy sees all but its field first. */
    size_t seg = 31;
    while (dump.p[seg] != 0x1C)
        seg += 9 + be4(dump.p + seg + 5);
    struct grower g = {in, &dump, &sp, seg + 9 + 75};
    pthread_t t;
    open_output();
    assert_int_equal(pthread_create(&t, NULL, grow, &g), 0);
    assert_int_equal(hd_splice_run(&sp), HD_SPLICE_OK);
    pthread_join(t, NULL);
    struct bytes out = close_output();
    struct found f = walk(&out);
    check_spliced(&f);
    assert_int_equal(sp.nulled, 1);
    free(out.p);
    fclose(in);
    free(dump.p);
}

/* The JVM's file is punched out behind the copy: the array citing an object
 * not dumped yet is checked before its part of the file goes. */
static void test_punches_the_copied_part(void **state)
{
    (void)state;
    struct bytes dump = make_dump(0, 16384, SMALL_NAMES);
    FILE *in = input_file(&dump, dump.len);
    struct hd_splice sp = {.fd = fileno(in), .overlap = true, .punch_lag = 1};
    atomic_init(&sp.jvm, HD_JVM_DONE);
    open_output();
    assert_int_equal(hd_splice_run(&sp), HD_SPLICE_OK);
    struct bytes out = close_output();
    struct found f = walk(&out);
    check_spliced(&f);
    assert_int_equal(sp.nulled, 1);
    assert_true(sp.punched >= 128 * 1024 && sp.punched < dump.len);
    uint8_t head[19];
    assert_int_equal(pread(fileno(in), head, sizeof head, 0), (ssize_t)sizeof head);
    for (size_t i = 0; i < sizeof head; i++)
        assert_int_equal(head[i], 0);
    free(out.p);
    fclose(in);
    free(dump.p);
}

static void assert_no_heap_records(const struct bytes *out)
{
    for (size_t pos = 0; pos < out->len; pos += 9 + be4(out->p + pos + 5))
        assert_true(out->p[pos] != 0x1C && out->p[pos] != 0x2C);
}

static void test_failed_dump_is_rolled_back(void **state)
{
    (void)state;
    struct bytes dump = make_dump(0, 0, SMALL_NAMES);
    /* The JVM failed with half a segment written. */
    FILE *in = input_file(&dump, dump.len - 40);
    struct hd_splice sp;
    open_output();
    hp_out_write("before", 6);
    assert_int_equal(run(in, true, HD_JVM_FAILED, &sp), HD_SPLICE_NOTHING);
    assert_string_equal(sp.error, "the JVM's dumper failed");
    struct bytes out = close_output();
    assert_memory_equal(out.p, "before", 6);
    struct bytes rest = {out.p + 6, out.len - 6, 0};
    assert_no_heap_records(&rest);
    free(out.p);
    fclose(in);
    free(dump.p);
}

static void test_unknown_sub_record_is_refused(void **state)
{
    (void)state;
    struct bytes dump = make_dump(0x42, 0, SMALL_NAMES);
    FILE *in = input_file(&dump, dump.len);
    struct hd_splice sp;
    for (int overlap = 0; overlap < 2; overlap++) {
        open_output();
        assert_int_equal(run(in, overlap, HD_JVM_DONE, &sp), HD_SPLICE_NOTHING);
        assert_non_null(strstr(sp.error, "unknown heap dump sub-record 0x42"));
        struct bytes out = close_output();
        assert_no_heap_records(&out);
        free(out.p);
    }
    fclose(in);
    free(dump.p);
}

static struct bytes read_file(const char *path)
{
    struct bytes b = {0};
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, chunk, n);
    fclose(f);
    return b;
}

static const uint8_t our_header[31] = "JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\x12\x34";

/* A record of ours: UTF8 `id` "ours". */
static void our_record(struct bytes *b, uint64_t id)
{
    utf8(b, id, "ours");
}

/* The output is a named file holding our header and one record. */
static void open_named_output(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    hp_out_open(fd, false, path, NULL);
    struct bytes r = {0};
    put(&r, our_header, sizeof our_header);
    our_record(&r, 7);
    hp_out_write(r.p, r.len);
    free(r.p);
}

/* The JVM's file, as HotSpot leaves it: mode 0600. */
static int jvm_file(const char *path, const struct bytes *dump)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, dump->p, dump->len), (ssize_t)dump->len);
    return fd;
}

static void test_takes_the_file_in_place(void **state)
{
    (void)state;
    char dir[] = "/tmp/hprof-splice-XXXXXX", jvm[PATH_MAX], outp[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(jvm, sizeof jvm, "%s/jvm.hprof", dir);
    snprintf(outp, sizeof outp, "%s/out.hprof", dir);
    struct bytes dump = make_dump(0, 0, JVM_NAMES);
    int fd = jvm_file(jvm, &dump);
    open_named_output(outp);
    struct hd_splice sp = {.fd = fd, .path = jvm, .inplace = true, .overlap = true};
    atomic_init(&sp.jvm, HD_JVM_DONE);
    assert_int_equal(hd_splice_run(&sp), HD_SPLICE_OK);
    assert_true(sp.adopted && sp.moved);
    assert_int_equal(sp.nulled, 1);
    struct bytes later = {0};
    our_record(&later, 8);
    hp_out_write(later.p, later.len);
    hp_out_close();
    close(fd);

    /* The JVM's file is the output now: our header, its records (the
     * names its own), then ours, before and after. */
    assert_int_equal(access(jvm, F_OK), -1);
    struct stat st;
    assert_int_equal(stat(outp, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    struct bytes out = read_file(outp);
    assert_memory_equal(out.p, our_header, sizeof our_header);
    struct bytes rest = {out.p + 31, out.len - 31, 0};
    struct found f = walk(&rest);
    check_numbers(&f);
    assert_int_equal(f.x_name, JVM_NAMES + 1);
    assert_int_equal(f.field_name, JVM_NAMES + 1);
    assert_int_equal(f.dummy_traces, 1);
    size_t tail = 2 * later.len;
    assert_int_equal(out.len, dump.len + tail);
    assert_int_equal(out.p[out.len - tail - 9], 0x2C);
    assert_memory_equal(out.p + out.len - later.len, later.p, later.len);
    assert_int_equal(be8(out.p + out.len - tail + 9), 7);
    unlink(outp);
    rmdir(dir);
    free(out.p);
    free(later.p);
    free(dump.p);
}

/* When the output's name cannot move (it names another file, or a link to
 * the output), the JVM's records are appended to the output instead. */
static void test_adopt_appends_when_it_cannot_rename(void **state)
{
    (void)state;
    char dir[] = "/tmp/hprof-splice-XXXXXX", jvm[PATH_MAX], outp[PATH_MAX], link[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(jvm, sizeof jvm, "%s/jvm.hprof", dir);
    snprintf(outp, sizeof outp, "%s/out.hprof", dir);
    snprintf(link, sizeof link, "%s/link.hprof", dir);
    struct bytes dump = make_dump(0, 0, JVM_NAMES);
    int fd = jvm_file(jvm, &dump);
    for (int via_link = 0; via_link < 2; via_link++) {
        struct bytes out;
        bool moved = true;
        if (via_link) {
            assert_int_equal(symlink(outp, link), 0);
            int ofd = open(link, O_RDWR | O_CREAT | O_TRUNC, 0644);
            assert_true(ofd >= 0);
            hp_out_open(ofd, false, link, NULL);
            hp_out_write(our_header, sizeof our_header);
            assert_true(hp_out_adopt(fd, jvm, 31, dump.len, &moved));
            hp_out_close();
            struct stat st;
            assert_int_equal(lstat(link, &st), 0);
            assert_true(S_ISLNK(st.st_mode));
            out = read_file(outp);
        } else {
            open_output();
            hp_out_write(our_header, sizeof our_header);
            assert_true(hp_out_adopt(fd, jvm, 31, dump.len, &moved));
            out = close_output();
        }
        assert_false(moved);
        assert_int_equal(out.len, dump.len);
        assert_memory_equal(out.p, our_header, 31);
        assert_memory_equal(out.p + 31, dump.p + 31, dump.len - 31);
        assert_int_equal(access(jvm, F_OK), 0);
        free(out.p);
    }
    close(fd);
    unlink(jvm);
    unlink(link);
    unlink(outp);
    rmdir(dir);
    free(dump.p);
}

/* Our object IDs are a sequence: a dump whose objects lie at or below it is
 * copied (the JVM's file is left as it was). */
static void test_in_place_refused_when_objects_could_meet_ours(void **state)
{
    (void)state;
    while (hp_objid_issued() < 0x1000)
        hp_objid_new(0);
    struct bytes dump = make_dump(0, 0, JVM_NAMES);
    FILE *in = input_file(&dump, dump.len);
    struct hd_splice sp = {.fd = fileno(in), .inplace = true, .overlap = true};
    atomic_init(&sp.jvm, HD_JVM_DONE);
    open_output();
    assert_int_equal(hd_splice_run(&sp), HD_SPLICE_OK);
    assert_false(sp.adopted);
    struct bytes out = close_output();
    struct found f = walk(&out);
    check_spliced(&f);
    struct bytes again = {0};
    put(&again, dump.p, dump.len);
    assert_int_equal(pread(fileno(in), again.p, dump.len, 0), (ssize_t)dump.len);
    assert_memory_equal(again.p, dump.p, dump.len);
    free(again.p);
    free(out.p);
    fclose(in);
    free(dump.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_then_two_passes),
        cmocka_unit_test(test_copies_a_growing_file),
        cmocka_unit_test(test_punches_the_copied_part),
        cmocka_unit_test(test_failed_dump_is_rolled_back),
        cmocka_unit_test(test_unknown_sub_record_is_refused),
        cmocka_unit_test(test_takes_the_file_in_place),
        cmocka_unit_test(test_adopt_appends_when_it_cannot_rename),
        cmocka_unit_test(test_in_place_refused_when_objects_could_meet_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
