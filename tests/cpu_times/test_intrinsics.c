/* Unit test of the @IntrinsicCandidate scan on hand-built class files. */
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

/* Class M with max(II)I annotated @Bar(v=@Bar) then @IntrinsicCandidate,
 * other(II)I annotated @Bar only, and a Long constant (two pool slots). */
static size_t build(struct buf *b, const char *annotation)
{
    b->n = 0;
    u4(b, 0xCAFEBABE), u2(b, 0), u2(b, 61);
    u2(b, 14);                                 /* pool count */
    utf8(b, "M");                              /* 1 */
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
    u2(b, 0x21), u2(b, 2), u2(b, 4), u2(b, 0); /* access, this, super, interfaces */
    u2(b, 0);                                  /* fields */
    u2(b, 2);                                  /* methods */
    u2(b, 9), u2(b, 5), u2(b, 6), u2(b, 1);    /* max */
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

static void finds_annotated_methods_only(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    for (int old = 0; old < 2; old++) {
        size_t n = build(&b, old ? "Ljdk/internal/HotSpotIntrinsicCandidate;"
                                 : "Ljdk/internal/vm/annotation/IntrinsicCandidate;");
        hp_intrinsics_scan(b.b, n, &in);
        assert_int_equal(in.n, 1);
        assert_true(hp_intrinsics_has(&in, "max", "(II)I"));
        assert_false(hp_intrinsics_has(&in, "other", "(II)I"));
        assert_false(hp_intrinsics_has(&in, "max", "(I)I"));
    }
}

static void ignores_other_annotations(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    hp_intrinsics_scan(b.b, build(&b, "Lfoo/Baz;"), &in);
    assert_int_equal(in.n, 0);
}

static void truncated_class_is_safe(void **state)
{
    (void)state;
    struct buf b;
    struct hp_intrinsics in;
    size_t n = build(&b, "Ljdk/internal/vm/annotation/IntrinsicCandidate;");
    for (size_t cut = 0; cut < n; cut++) {
        hp_intrinsics_scan(b.b, cut, &in);
        assert_true(in.n <= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_annotated_methods_only),
        cmocka_unit_test(ignores_other_annotations),
        cmocka_unit_test(truncated_class_is_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
