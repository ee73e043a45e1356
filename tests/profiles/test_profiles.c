/* Unit tests of the profile model, the ascii reader's strictness, the binary
 * reader on truncations, and a replay of the fuzz corpus through every renderer. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/profile/load.h"
#include "cli/render/merge.h"
#include "cli/render/render.h"
#include "render_all.h"

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", getenv("PROFILES_CORPUS"), name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* The value of the stack whose leaf-first frame names are `names` ("a;b"). */
static uint64_t stack_value(const hp_profile *p, const char *names, int value)
{
    for (uint32_t s = 0; s < p->nstacks; s++) {
        char buf[1024] = "";
        const hp_pstack *st = &p->stacks[s];
        for (uint32_t i = 0; i < st->depth; i++) {
            if (i) strcat(buf, ";");
            strcat(buf, hp_profile_str(p, p->frames[p->stack_frames[st->first + i]].func));
        }
        if (!strcmp(buf, names)) return st->v[value];
    }
    return UINT64_MAX;
}

/* Loads a corpus file (every kind); its text stays alive in *text. */
static void load_corpus(const char *name, hp_profile_set *set, char **text)
{
    size_t n;
    hp_error e;
    *text = slurp(name, &n);
    if (hp_profile_load_mem(set, name, (uint8_t *)*text, n, HP_WANT_FIRST, &e) != 0)
        fail_msg("%s: %s", name, e.what);
}

static int frame_kind(const hp_profile *p, const char *func)
{
    for (uint32_t i = 0; i < p->nframes; i++)
        if (!strcmp(hp_profile_str(p, p->frames[i].func), func)) return p->frames[i].kind;
    return -1;
}

static void test_ascii_samples(void **state)
{
    (void)state;
    char *text;
    hp_profile_set set;
    load_corpus("ascii_samples.txt", &set, &text);
    const hp_profile *p = &set.kinds[HP_PK_SAMPLES];
    assert_true(set.present[HP_PK_SAMPLES]);
    assert_false(set.present[HP_PK_SITES]);
    assert_int_equal(p->total[0], 50); /* both sections' totals */
    assert_int_equal(stack_value(p, "ProfHot.unit;ProfHot.hot;ProfHot.main", 0), 30);
    assert_int_equal(stack_value(p, "[below cutoff]", 0), 4);
    assert_int_equal(stack_value(p, "[empty trace]", 0), 4);
    assert_true(p->per_thread);
    assert_int_equal(frame_kind(p, "java.lang.Object.wait"), HP_FK_NATIVE);
    assert_int_equal(frame_kind(p, "java.lang.Thread.run"), HP_FK_JDK);
    assert_int_equal(frame_kind(p, "ProfHot.hot"), HP_FK_USER);
    const uint64_t *name = hp_idmap_get(&p->thread_names, 200008);
    assert_non_null(name);
    assert_string_equal(hp_profile_str(p, (uint32_t)*name), "work\\\"er");
    hp_profile_set_free(&set);
    free(text);
}

static void test_ascii_times_and_sites(void **state)
{
    (void)state;
    char *text;
    hp_profile_set set;
    load_corpus("ascii_times.txt", &set, &text);
    const hp_profile *t = &set.kinds[HP_PK_TIMES], *s = &set.kinds[HP_PK_SITES];
    assert_int_equal(t->total[0], 4);    /* calls */
    assert_int_equal(t->total[1], 1000); /* ms, as stated */
    assert_int_equal(stack_value(t, "A.leaf;A.run", 1), 667);
    assert_int_equal(s->total[1], 1900); /* allocated bytes */
    assert_int_equal(s->total[3], 1000); /* live bytes */
    assert_int_equal(stack_value(s, "byte[];A.leaf;A.run", 0), 18);
    assert_int_equal(frame_kind(s, "byte[]"), HP_FK_ALLOC);
    hp_profile_set_free(&set);
    free(text);
}

static void test_ascii_old(void **state)
{
    (void)state;
    char *text;
    hp_profile_set set;
    load_corpus("ascii_old.txt", &set, &text);
    const hp_profile *p = &set.kinds[HP_PK_OLD];
    assert_int_equal(p->total[0], 6006 + 3 + 2 + 4);
    assert_int_equal(p->total[1], 11);
    assert_int_equal(stack_value(p, "A.b;A.a", 0), 4);
    assert_int_equal(stack_value(p, "<unknown callee>;<unknown caller>", 0), 2);
    assert_int_equal(frame_kind(p, "<unknown caller>"), HP_FK_UNWALKABLE);
    hp_profile_set_free(&set);
    free(text);
}

static void check_pseudo_kinds(const hp_profile *p)
{
    assert_int_equal(frame_kind(p, "<GC>.workers"), HP_FK_GC);
    assert_int_equal(frame_kind(p, "[GC workers].young"), HP_FK_GC);
    assert_int_equal(frame_kind(p, "[JIT].compile"), HP_FK_JIT);
    assert_int_equal(frame_kind(p, "[VM].operations"), HP_FK_VM);
    assert_int_equal(frame_kind(p, "[GCLocker].stall"), HP_FK_VM); /* a word, not a prefix */
    assert_int_equal(frame_kind(p, "<unwalkable>.in_gc"), HP_FK_UNWALKABLE);
    assert_int_equal(frame_kind(p, "P.run"), HP_FK_USER);
}

/* Bracketed classes are pseudo-frames of their kind, in ascii and, written
 * as ordinary FRAME records, in binary. */
static void test_pseudo_frames(void **state)
{
    (void)state;
    char *text, *out = NULL;
    size_t len = 0;
    hp_profile_set set, again;
    hp_error e;
    load_corpus("ascii_pseudo.txt", &set, &text);
    check_pseudo_kinds(&set.kinds[HP_PK_SAMPLES]);
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(hp_write_binary(f, &set, &e), 0);
    fclose(f);
    assert_int_equal(hp_profile_load_mem(&again, "binary", (uint8_t *)out, len, HP_WANT_ALL, &e),
                     0);
    assert_int_equal(again.format, HP_PFMT_BINARY);
    check_pseudo_kinds(&again.kinds[HP_PK_SAMPLES]);
    assert_int_equal(stack_value(&again.kinds[HP_PK_SAMPLES], "[JIT].compile", 0), 5);
    hp_profile_set_free(&again);
    hp_profile_set_free(&set);
    free(out);
    free(text);
}

#define HEAD "JAVA PROFILE 1.0.1, created Thu Nov 26 00:11:46 2026\n\n--------\n\n"
#define TRACE1 "TRACE 1:\n\tA.b(A.java:3)\n"
#define SAMPLES(rows)                                                                              \
    "CPU SAMPLES BEGIN (total = 5) Thu Nov 26 00:11:48 2026\n" rows "CPU SAMPLES END\n"

static void test_ascii_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"", "empty file at line 0"},
        {"hello\n", "not an hprof profile"},
        {"JAVA PROFILE 1.0.1, created x\nno separator\n", "no \"--------\" line"},
        {HEAD "bogus\n", "unexpected line at line 5"},
        {HEAD "TRACE x:\n", "malformed TRACE line at line 5"},
        {HEAD "TRACE 1:\n\tno frame here\n", "malformed frame line at line 6"},
        {HEAD "TRACE 1:\n\tA.b(A.java:-5)\n", "malformed frame line"},
        {HEAD "TRACE 1:\n", "TRACE without frames"},
        {HEAD TRACE1 TRACE1, "TRACE defined twice at line 7"},
        {HEAD SAMPLES("   1 100.00% 100.00%       5     2 A.b\n"),
         "not defined before it at line 6"},
        {HEAD TRACE1 SAMPLES("   1 100.0% 100.00%       5     1 A.b\n"),
         "malformed CPU report row"},
        {HEAD TRACE1 SAMPLES("   1 100.00% 100.00%       x     1 A.b\n"),
         "malformed CPU report row"},
        {HEAD TRACE1 "CPU SAMPLES BEGIN (total = 5) Thu\n", "report without END"},
        {HEAD TRACE1 "CPU SAMPLES BEGIN (total 5) Thu\n", "malformed report title"},
        {HEAD TRACE1 "SITES BEGIN (ordered by live bytes) x\nbad\n",
         "malformed SITES column header"},
        {HEAD "THREAD START (obj=1, id = x, name=\"a\", group=\"b\")\n", "malformed THREAD START"},
        {HEAD "HEAP DUMP BEGIN (0 objects, 0 bytes) x\n", "section without END"},
        {"count callee caller time\n1 A.b()V\n", "malformed cpu=old row at line 2"},
        {"count callee caller time\n1 nodot nodot 2\n", "malformed method in cpu=old row"},
        {"JAVA PROFILE 1.0.2\0", "truncated header at offset 19"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hp_profile_set set;
        hp_error e = {0};
        size_t len = strlen(cases[i].text);
        if (!strncmp(cases[i].text, "JAVA PROFILE 1.0.2", 18)) len = 19;
        int rc = hp_profile_load_mem(&set, "t", (const uint8_t *)cases[i].text, len, -1, &e);
        if (rc != -1 || !strstr(e.what, cases[i].error))
            fail_msg("case %zu: rc %d, error \"%s\", want \"%s\"", i, rc, e.what, cases[i].error);
    }
}

/* Every prefix of a binary profile loads or fails with an offset, never crashes. */
static void test_binary_truncations(void **state)
{
    (void)state;
    size_t n;
    char *buf = slurp("binary_samples.bin", &n);
    int failures = 0;
    for (size_t len = 0; len < n; len++) {
        hp_profile_set set;
        hp_error e = {0};
        if (hp_profile_load_mem(&set, "t", (uint8_t *)buf, len, -1, &e) == 0) {
            hp_profile_set_free(&set);
            continue;
        }
        failures++;
        if (len > 19 && !strstr(e.what, " at offset ")) fail_msg("len %zu: %s", len, e.what);
    }
    assert_true(failures > 0);
    free(buf);
}

/* A corpus file merged with itself and written in its own format reads back
 * with every count doubled (CPU TIME's time excepted: ascii rows state
 * rounded shares of it). */
static void check_merge_doubles(const char *name, const char *buf, size_t n)
{
    hp_profile_set set[2], merged, again;
    hp_error e;
    const char *names[2] = {name, name};
    if (hp_profile_load_mem(&set[0], name, (const uint8_t *)buf, n, HP_WANT_ALL, &e) != 0) return;
    set[1] = set[0];
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(hp_merge(&merged, set, 2, names, &e), 0);
    if (merged.format == HP_PFMT_BINARY)
        assert_int_equal(hp_write_binary(f, &merged, &e), 0);
    else
        assert_int_equal(hp_write_ascii(f, &merged, &e), 0);
    fclose(f);
    if (hp_profile_load_mem(&again, "merged", (uint8_t *)out, len, HP_WANT_ALL, &e) != 0)
        fail_msg("%s merged: %s", name, e.what);
    for (int k = 0; k < HP_PK_NKINDS; k++) {
        assert_int_equal(again.present[k], set[0].present[k]);
        for (int v = 0; v < set[0].kinds[k].nvalues; v++)
            if (!(k == HP_PK_TIMES && v == 1))
                assert_int_equal(again.kinds[k].total[v], 2 * set[0].kinds[k].total[v]);
    }
    hp_profile_set_free(&again);
    hp_profile_set_free(&merged);
    hp_profile_set_free(&set[0]);
    free(out);
}

/* The value of thread `name`'s rank-th thread (by merged serial) in p. */
static uint64_t thread_value(const hp_profile *p, const char *name, int rank)
{
    uint32_t serials[8];
    int n = 0;
    for (size_t i = 0; i < p->thread_names.cap; i++)
        if (p->thread_names.used[i] &&
            !strcmp(hp_profile_str(p, (uint32_t)p->thread_names.vals[i]), name))
            serials[n++] = (uint32_t)p->thread_names.keys[i];
    for (int i = 1; i < n; i++) /* insertion sort: a handful of serials */
        for (int j = i; j > 0 && serials[j - 1] > serials[j]; j--) {
            uint32_t t = serials[j];
            serials[j] = serials[j - 1];
            serials[j - 1] = t;
        }
    uint64_t v = 0;
    for (uint32_t s = 0; rank < n && s < p->nstacks; s++)
        if (p->stacks[s].thread == serials[rank]) v += p->stacks[s].v[0];
    return rank < n ? v : UINT64_MAX;
}

/* Threads merge by name and rank: "main" with "main", the n-th "pool" of
 * one input with the n-th of the other, whatever their serials. */
static void test_merge_threads_by_name_and_rank(void **state)
{
    (void)state;
    hp_profile_set in[2], merged;
    char *text[2];
    hp_error e;
    const char *names[2] = {"ascii_threads.txt", "ascii_threads_b.txt"};
    load_corpus(names[0], &in[0], &text[0]);
    load_corpus(names[1], &in[1], &text[1]);
    assert_int_equal(hp_merge(&merged, in, 1, names, &e), 0);
    const hp_profile *p = &merged.kinds[HP_PK_SAMPLES];
    assert_int_equal(thread_value(p, "pool", 0), 2);
    assert_int_equal(thread_value(p, "pool", 1), 4);
    assert_int_equal(thread_value(p, "main", 0), 1);
    hp_profile_set_free(&merged);
    assert_int_equal(hp_merge(&merged, in, 2, names, &e), 0);
    assert_int_equal(thread_value(p, "pool", 0), 2 + 20);
    assert_int_equal(thread_value(p, "pool", 1), 4);
    assert_int_equal(thread_value(p, "pool", 2), UINT64_MAX);
    assert_int_equal(thread_value(p, "main", 0), 1 + 10);
    assert_int_equal(thread_value(p, "main", 1), UINT64_MAX);
    hp_profile_set_free(&merged);
    for (int i = 0; i < 2; i++) {
        hp_profile_set_free(&in[i]);
        free(text[i]);
    }
}

/* A one-frame stack named `name` with `count` samples. */
static void add_named(hp_profile *p, const char *name, uint64_t count)
{
    hp_pframe f = {.func = hp_profile_string(p, name, strlen(name)), .kind = HP_FK_AUTO};
    uint32_t id = hp_profile_frame(p, &f);
    uint64_t v[HP_PVALUES] = {count};
    assert_int_equal(hp_profile_add(p, &id, 1, 0, v), 0);
}

/* Names from a hostile file cannot break a text diff's rows or reach the
 * terminal as escapes. */
static void test_diff_text_names_are_one_cell(void **state)
{
    (void)state;
    hp_profile a, b;
    hp_error e;
    const char *evil = "E\x1b[2J\nvil\r.m", *names[2] = {"a", "b"};
    hp_profile_init(&a, HP_PK_SAMPLES, HP_PFMT_BINARY);
    hp_profile_init(&b, HP_PK_SAMPLES, HP_PFMT_BINARY);
    add_named(&a, evil, 1);
    add_named(&a, "P.run", 3);
    add_named(&b, evil, 3);
    add_named(&b, "P.run", 1);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    hp_render_opts o = {0};
    assert_int_equal(hp_render_diff(f, &a, &b, &o, names, 0, &e), 0);
    fclose(f);
    assert_null(memchr(out, 0x1b, len));
    assert_null(memchr(out, '\r', len));
    assert_non_null(strstr(out, "  E?[2J?vil?.m\n"));
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += out[i] == '\n';
    assert_int_equal(lines, 4 + 2 + 2 + 2); /* header 4, methods 2, stacks heading 2 and 2 rows */
    free(out);
    hp_profile_free(&a);
    hp_profile_free(&b);
}

/* A gzipped file reads as the plain one; a cut one is an error. */
static void test_gzip_input(void **state)
{
    (void)state;
    char path[1024];
    hp_profile_set set;
    hp_error e;
    snprintf(path, sizeof path, "%s/gzip_samples.txt.gz", getenv("PROFILES_CORPUS"));
    assert_int_equal(hp_profile_load(&set, path, HP_WANT_ALL, &e), 0);
    assert_int_equal(set.kinds[HP_PK_SAMPLES].total[0], 50); /* as ascii_samples.txt */
    hp_profile_set_free(&set);
    size_t n;
    char *gz = slurp("gzip_samples.txt.gz", &n);
    char cut[] = "/tmp/hprof-profiles-cut-XXXXXX";
    int fd = mkstemp(cut);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, gz, n - 9), (ssize_t)(n - 9));
    close(fd);
    assert_int_equal(hp_profile_load(&set, cut, HP_WANT_ALL, &e), -1);
    assert_string_equal(e.what, "gzip member truncated");
    unlink(cut);
    free(gz);
}

/* The corpus (seeds and fuzzer finds) through the loader and every renderer. */
static void test_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(getenv("PROFILES_CORPUS"));
    FILE *sink = fopen("/dev/null", "w");
    struct dirent *ent;
    int files = 0;
    assert_non_null(d);
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.') continue;
        size_t n;
        char *buf = slurp(ent->d_name, &n);
        files++;
        if (!strncmp(ent->d_name, "ascii_", 6) || !strncmp(ent->d_name, "binary_", 7))
            check_merge_doubles(ent->d_name, buf, n);
        assert_int_equal(render_all(sink, (const uint8_t *)buf, n), 0);
        free(buf);
    }
    closedir(d);
    fclose(sink);
    assert_true(files >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascii_samples),
        cmocka_unit_test(test_ascii_times_and_sites),
        cmocka_unit_test(test_ascii_old),
        cmocka_unit_test(test_ascii_errors),
        cmocka_unit_test(test_binary_truncations),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_merge_threads_by_name_and_rank),
        cmocka_unit_test(test_pseudo_frames),
        cmocka_unit_test(test_diff_text_names_are_one_cell),
        cmocka_unit_test(test_gzip_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
