/* Unit tests of the rewriter's call-site report (method_calls) and of the
 * call hook before numbered invokes. */
#include "bci/bci.h"
#include "classgen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct call_log {
    int reports, asked;
    int32_t first_line;
    char what[8][64];
    uint32_t n;
};

static void log_calls(void *ctx, const struct bci_method_calls *mc)
{
    struct call_log *log = ctx;
    log->reports++;
    log->first_line = mc->first_line;
    for (uint32_t i = 0; i < mc->n && log->n < 8; i++) {
        const struct bci_call *c = &mc->calls[i];
        snprintf(log->what[log->n++], sizeof log->what[0], "%02x %.*s.%.*s%.*s %d", c->opcode,
                 c->owner_len, (const char *)c->owner, c->name ? c->name_len : 0,
                 c->name ? (const char *)c->name : "", c->desc ? c->desc_len : 0,
                 c->desc ? (const char *)c->desc : "", (int)c->line);
    }
}

/* Numbers the call of a() on line 11 only: 700 + its line. */
static int number_call(void *ctx, int mnum, const struct bci_call *c)
{
    (void)mnum;
    struct call_log *log = ctx;
    log->asked++;
    return c->name_len == 1 && c->name[0] == 'a' && c->line == 11 ? 711 : BCI_SKIP;
}

static const uint8_t *find(const uint8_t *p, size_t len, const uint8_t *what, size_t n)
{
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(p + i, what, n) == 0) return p + i;
    return NULL;
}

static void test_calls_and_call_hook(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t a = cg_methodref(g, "C", "a", "()V");
    uint16_t self = cg_class(g, "C");
    uint8_t code[] = {0xb8, a >> 8,    a & 255,                 /* 0: invokestatic a (line 10) */
                      0xb8, a >> 8,    a & 255,                 /* 3: invokestatic a (line 11) */
                      0xbb, self >> 8, self & 255, 0x57, 0xb1}; /* 6: new C; pop; return (12) */
    uint8_t lnt[] = {0, 3, 0, 0, 0, 10, 0, 3, 0, 11, 0, 6, 0, 12};
    size_t len;
    uint8_t *cls = cg_finish_with_lines(g, 1, code, sizeof code, lnt, sizeof lnt, &len);
    struct call_log log = {0};
    struct bci_hooks h = {.tracker_class = "T",
                          .entry_name = "en",
                          .entry_desc = "(I)I",
                          .exit_name = "ex",
                          .exit_desc = "(I)V",
                          .resume_name = "re",
                          .resume_desc = "(I)V",
                          .entry_local = BCI_LOCAL_INT,
                          .call_name = "ca",
                          .call_desc = "(II)V",
                          .call_number = number_call,
                          .method_calls = log_calls,
                          .ctx = &log};
    struct bci_result r;
    assert_int_equal(bci_rewrite(cls, len, &h, &r), 1);
    assert_int_equal(log.reports, 1);
    assert_int_equal(log.first_line, 10);
    assert_int_equal(log.n, 3);
    assert_string_equal(log.what[0], "b8 C.a()V 10");
    assert_string_equal(log.what[1], "b8 C.a()V 11");
    assert_string_equal(log.what[2], "bb C. 12");
    assert_int_equal(log.asked, 2); /* invokes only */
    /* before the second invoke only: iload_0 (the added local); sipush 711;
     * invokestatic T.ca */
    const uint8_t hook[] = {0x1a, 0x11, 711 >> 8, 711 & 255, 0xb8};
    const uint8_t *at = find(r.data, r.len, hook, sizeof hook);
    assert_non_null(at);
    assert_null(find(at + 1, r.len - (size_t)(at + 1 - r.data), hook, sizeof hook));
    assert_memory_equal(at + sizeof hook + 2, ((uint8_t[]){0xb8, a >> 8, a & 255}), 3);
    bci_free(&r);
    /* No call hook without the entry local. */
    h.entry_local = 0;
    assert_int_equal(bci_rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "call without entry_local");
    free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_calls_and_call_hook)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
