/* Unit test of the scan for @IntrinsicCandidate methods and method-handle
 * plumbing on hand-built class files. */
#include "agent/instrument/intrinsics.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

struct buf {
    uint8_t b[1024];
    size_t n;
};

static void u1(struct buf *b, unsigned v)
{
    b->b[b->n++] = (uint8_t)v;
}
static void u2(struct buf *b, unsigned v)
{
    u1(b, v >> 8), u1(b, v & 0xff);
}
static void u4(struct buf *b, uint32_t v)
{
    u2(b, v >> 16), u2(b, v & 0xffff);
}
static void utf8(struct buf *b, const char *s)
{
    u1(b, 1);
    u2(b, (unsigned)strlen(s));
    memcpy(b->b + b->n, s, strlen(s));
    b->n += strlen(s);
}

enum body { NO_CODE, ALLOCATES, ASSERTS, COMPUTES };

/* Class `cls` with max(II)I annotated @Bar(v=@Bar) then `annotation`,
 * with a Code attribute per `body`, other(II)I annotated @Bar only, and a
 * Long constant (two pool slots). */
static size_t build_class(struct buf *b, const char *cls, const char *annotation, enum body body)
{
    static const uint8_t code[][4] = {
        [ALLOCATES] = {0x04, 0xbc, 10, 0xb0},   /* iconst_1; newarray int; areturn */
        [ASSERTS] = {0xbb, 0, 16, 0xbf},        /* new AssertionError; athrow */
        [COMPUTES] = {0x1a, 0x1b, 0x60, 0xac}}; /* iload_0; iload_1; iadd; ireturn */
    b->n = 0;
    u4(b, 0xCAFEBABE), u2(b, 0), u2(b, 61);
    u2(b, 17);                                 /* pool count */
    utf8(b, cls);                              /* 1 */
    u1(b, 7), u2(b, 1);                        /* 2 Class M */
    utf8(b, "java/lang/Object");               /* 3 */
    u1(b, 7), u2(b, 3);                        /* 4 */
    utf8(b, "max");                            /* 5 */
    utf8(b, "(II)I");                          /* 6 */
    utf8(b, "RuntimeVisibleAnnotations");      /* 7 */
    utf8(b, annotation);                       /* 8 */
    utf8(b, "other");                          /* 9 */
    utf8(b, "Lfoo/Bar;");                      /* 10 */
    utf8(b, "v");                              /* 11 */
    u1(b, 5), u4(b, 0), u4(b, 7);              /* 12-13 Long */
    utf8(b, "Code");                           /* 14 */
    utf8(b, "java/lang/AssertionError");       /* 15 */
    u1(b, 7), u2(b, 15);                       /* 16 */
    u2(b, 0x21), u2(b, 2), u2(b, 4), u2(b, 0); /* access, this, super, interfaces */
    u2(b, 0);                                  /* fields */
    u2(b, 2);                                  /* methods */
    u2(b, 9), u2(b, 5), u2(b, 6), u2(b, body == NO_CODE ? 1 : 2); /* max */
    if (body != NO_CODE) {
        u2(b, 14), u4(b, 2 + 2 + 4 + 4 + 2 + 2);
        u2(b, 2), u2(b, 2), u4(b, 4);
        for (int i = 0; i < 4; i++)
            u1(b, code[body][i]);
        u2(b, 0), u2(b, 0); /* exception table, attributes */
    }
    u2(b, 7), u4(b, 2 + (6 + 1 + 4) + 4);
    u2(b, 2);
    u2(b, 10), u2(b, 1), u2(b, 11), u1(b, '@'), u2(b, 10), u2(b, 0); /* @Bar(v=@Bar) */
    u2(b, 8), u2(b, 0);
    u2(b, 9), u2(b, 9), u2(b, 6), u2(b, 1); /* other */
    u2(b, 7), u4(b, 2 + 4);
    u2(b, 1);
    u2(b, 10), u2(b, 0);
    u2(b, 0); /* class attributes */
    return b->n;
}

static size_t build(struct buf *b, const char *annotation, enum body body)
{
    return build_class(b, "M", annotation, body);
}

static void finds_annotated_methods_only(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    for (int old = 0; old < 2; old++) {
        size_t n = build(&b,
                         old ? "Ljdk/internal/HotSpotIntrinsicCandidate;"
                             : "Ljdk/internal/vm/annotation/IntrinsicCandidate;",
                         NO_CODE);
        hp_intrinsics_scan(b.b, n, &in);
        assert_int_equal(in.n, 1);
        assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_INTRINSIC);
        assert_int_equal(hp_intrinsics_kind(&in, "other", "(II)I"), HP_NOT_INTRINSIC);
        assert_int_equal(hp_intrinsics_kind(&in, "max", "(I)I"), HP_NOT_INTRINSIC);
        hp_intrinsics_free(&in);
    }
}

/* An array or a `new` in the body makes an allocating intrinsic; an
 * AssertionError (made only to be thrown) does not. */
static void tells_allocating_intrinsics(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    const char *ic = "Ljdk/internal/vm/annotation/IntrinsicCandidate;";
    hp_intrinsics_scan(b.b, build(&b, ic, ALLOCATES), &in);
    assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_INTRINSIC_ALLOCATING);
    hp_intrinsics_free(&in);
    hp_intrinsics_scan(b.b, build(&b, ic, ASSERTS), &in);
    assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_INTRINSIC);
    hp_intrinsics_free(&in);
    hp_intrinsics_scan(b.b, build(&b, ic, COMPUTES), &in);
    assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_INTRINSIC);
    hp_intrinsics_free(&in);
}

static void ignores_other_annotations(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    hp_intrinsics_scan(b.b, build(&b, "Lfoo/Baz;", ALLOCATES), &in);
    assert_int_equal(in.n, 0);
    hp_intrinsics_free(&in);
}

/* @ForceInline and @Hidden mark method-handle plumbing in java/lang/invoke/
 * and jdk/internal/reflect/ only; @IntrinsicCandidate anywhere. */
static void finds_plumbing_in_its_packages(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    const char *force = "Ljdk/internal/vm/annotation/ForceInline;";
    const char *hidden = "Ljdk/internal/vm/annotation/Hidden;";
    const char *owners[] = {"java/lang/invoke/VarHandleGuards", "jdk/internal/reflect/Accessor"};
    for (int i = 0; i < 2; i++) {
        hp_intrinsics_scan(b.b, build_class(&b, owners[i], i ? hidden : force, ALLOCATES), &in);
        assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_MH_PLUMBING);
        assert_int_equal(hp_intrinsics_kind(&in, "other", "(II)I"), HP_NOT_INTRINSIC);
        hp_intrinsics_free(&in);
    }
    hp_intrinsics_scan(b.b, build_class(&b, "java/lang/invokeX", force, COMPUTES), &in);
    assert_int_equal(in.n, 0);
    hp_intrinsics_free(&in);
    hp_intrinsics_scan(b.b, build_class(&b, "java/util/Objects", force, COMPUTES), &in);
    assert_int_equal(in.n, 0);
    hp_intrinsics_free(&in);
    hp_intrinsics_scan(b.b,
                       build_class(&b, "java/lang/invoke/Invokers",
                                   "Ljdk/internal/vm/annotation/IntrinsicCandidate;", COMPUTES),
                       &in);
    assert_int_equal(hp_intrinsics_kind(&in, "max", "(II)I"), HP_INTRINSIC);
    hp_intrinsics_free(&in);
}

static void truncated_class_is_safe(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    size_t n = build(&b, "Ljdk/internal/vm/annotation/IntrinsicCandidate;", ALLOCATES);
    for (size_t cut = 0; cut < n; cut++) {
        hp_intrinsics_scan(b.b, cut, &in);
        assert_true(in.n <= 1);
        hp_intrinsics_free(&in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_annotated_methods_only),
        cmocka_unit_test(tells_allocating_intrinsics),
        cmocka_unit_test(ignores_other_annotations),
        cmocka_unit_test(finds_plumbing_in_its_packages),
        cmocka_unit_test(truncated_class_is_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
