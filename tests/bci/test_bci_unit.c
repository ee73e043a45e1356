/* Unit tests of the class-file rewriter on generated classes: parsing,
 * versions, limits, malformed input, relocation of offsets and tables. */
#include "bci/bci.h"
#include "bci/buf.h"
#include "bci/classfile.h"
#include "bci_check.h"
#include "classgen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_class_name(void **state)
{
    (void)state;
    size_t len;
    uint8_t code[] = {0xb1};
    cg_method m = {.access = 9, .name = "m", .desc = "()V", .code = code, .code_len = 1};
    classgen *g = cg_new(52, "pkg/Name", "java/lang/Object");
    cg_add_method(g, &m);
    uint8_t *cls = cg_finish(g, &len);
    char buf[64];
    assert_int_equal(bci_class_name(cls, len, buf, sizeof buf), 8);
    assert_string_equal(buf, "pkg/Name");
    assert_int_equal(bci_class_name(cls, len, buf, 8), -1);
    assert_int_equal(bci_class_name(cls, 12, buf, sizeof buf), -1);
    free(cls);
}

/* Every supported version; the catch-all frame needs a StackMapTable from 50. */
static void test_versions(void **state)
{
    (void)state;
    static const uint16_t versions[] = {45, 46, 47, 48, 49, 50, 51, 52, 55, 61, 65, 69};
    uint8_t code[] = {0x04, 0xac};
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
        size_t len;
        uint8_t *cls = one_method(versions[k],
                                  &(cg_method){.access = 9,
                                               .name = "m",
                                               .desc = "()I",
                                               .max_stack = 1,
                                               .code = code,
                                               .code_len = 2},
                                  &len);
        struct bci_result r;
        assert_int_equal(rewrite(cls, len, &all_hooks, &r), 1);
        code_t c;
        get_code(r.data, r.len, 0, &c);
        assert_int_equal(c.has_smt, versions[k] >= 50);
        bci_free(&r);
        free(cls);
    }
}

/* Pre-Java 6 subroutines: jsr targets are relocated, ret is copied. */
static void test_jsr_ret(void **state)
{
    (void)state;
    /* 0: jsr 4; 3: return; 4: astore_1; 5: ret 1 */
    uint8_t code[] = {0xa8, 0, 4, 0xb1, 0x4c, 0xa9, 1};
    size_t len;
    uint8_t *cls = one_method(49,
                              &(cg_method){.access = 9,
                                           .name = "m",
                                           .desc = "()V",
                                           .max_stack = 1,
                                           .max_locals = 2,
                                           .code = code,
                                           .code_len = sizeof code},
                              &len);
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* entry (6) | jsr | exit hook (6) | return | astore_1 | ret 1 | handler */
    assert_int_equal(c.code[6], 0xa8);
    assert_int_equal(be_u2(c.code + 7), 10);
    assert_int_equal(c.code[16], 0x4c);
    assert_memory_equal(c.code + 17, ((uint8_t[]){0xa9, 1}), 2);
    assert_false(c.has_smt);
    bci_free(&r);
    free(cls);
}

static void test_add_field(void **state)
{
    (void)state;
    uint8_t code[] = {0xb1};
    cg_method m = {
        .access = 9, .name = "m", .desc = "()V", .max_stack = 0, .code = code, .code_len = 1};
    size_t len;
    uint8_t *cls = one_method(52, &m, &len);
    struct bci_hooks h = all_hooks;
    const struct bci_field fields[] = {
        {"slot", "Ljava/lang/Object;"}, {"depth", "I"}, {NULL, NULL}};
    h.field_class = "C";
    h.fields = fields;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    classfile cf;
    assert_null(cf_parse(&cf, r.data, r.len));
    assert_int_equal(cf.nfields, 2);
    assert_int_equal(cf.fields[0].access, 0x1080);
    assert_true(cp_utf8_eq(&cf.cp, cf.fields[0].name, "slot"));
    assert_true(cp_utf8_eq(&cf.cp, cf.fields[0].desc, "Ljava/lang/Object;"));
    assert_true(cp_utf8_eq(&cf.cp, cf.fields[1].name, "depth"));
    assert_true(cp_utf8_eq(&cf.cp, cf.fields[1].desc, "I"));
    cf_free(&cf);
    /* Once there, not added again; another class gets none. */
    struct bci_result again;
    assert_int_equal(rewrite(r.data, r.len, &h, &again), 1);
    assert_null(cf_parse(&cf, again.data, again.len));
    assert_int_equal(cf.nfields, 2);
    cf_free(&cf);
    bci_free(&again);
    h.field_class = "D";
    assert_int_equal(rewrite(cls, len, &h, &again), 1);
    assert_null(cf_parse(&cf, again.data, again.len));
    assert_int_equal(cf.nfields, 0);
    cf_free(&cf);
    bci_free(&again);
    bci_free(&r);
    free(cls);
}

static int skip_all(void *ctx, const char *name, const char *desc, uint16_t access)
{
    (void)ctx, (void)name, (void)desc, (void)access;
    return BCI_SKIP;
}

static int count_calls(void *ctx, const char *name, const char *desc, uint16_t access)
{
    (void)name, (void)desc, (void)access;
    return ++*(int *)ctx;
}

static void test_untouched_methods(void **state)
{
    (void)state;
    uint8_t ret[] = {0xb1};
    classgen *g = cg_new(52, "C", "java/lang/Object");
    cg_add_method(g, &(cg_method){.access = 0x0101, .name = "n", .desc = "()V"}); /* native */
    cg_add_method(g, &(cg_method){.access = 0x0401, .name = "a", .desc = "()V"}); /* abstract */
    cg_add_method(
        g,
        &(cg_method){.access = 4, .name = "finalize", .desc = "()V", .code = ret, .code_len = 1});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    int calls = 0;
    struct bci_hooks h = all_hooks;
    h.method_number = count_calls;
    h.ctx = &calls;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "nothing to inject");
    assert_int_equal(calls, 0);
    free(cls);

    cls = one_method(
        52, &(cg_method){.access = 9, .name = "m", .desc = "()V", .code = ret, .code_len = 1},
        &len);
    h.method_number = skip_all;
    assert_int_equal(rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "nothing to inject");
    free(cls);
}

/* [iconst_0; ifeq L | goto L]; n x (iconst_1; newarray int; pop); L: return.
 * conditional: 0 goto, 1 ifeq, 2 ifeq with StackMapTable frames at the
 * branch's fall-through and target. */
static uint8_t *far_branch(uint16_t major, int conditional, size_t *len)
{
    enum { N = 3000 };
    static uint8_t code[N * 4 + 16];
    size_t k = 0;
    uint32_t target = 3 + N * 4;
    if (conditional) {
        code[k++] = 0x03;
        code[k++] = 0x99; /* ifeq */
        target += 1;
    } else {
        code[k++] = 0xa7;
    }
    uint32_t off = target - (uint32_t)(k - 1); /* relative to the branch opcode */
    code[k++] = (uint8_t)(off >> 8);
    code[k++] = (uint8_t)off;
    for (int i = 0; i < N; i++) {
        code[k++] = 0x04;
        code[k++] = 0xbc;
        code[k++] = 10;
        code[k++] = 0x57;
    }
    code[k++] = 0xb1;
    /* frames at the fall-through of the branch and at its target */
    uint32_t fall = conditional ? 4 : 3, d2 = target - fall - 1;
    uint8_t smt[] = {0, 2, (uint8_t)fall, 251, (uint8_t)(d2 >> 8), (uint8_t)d2};
    cg_method m = {.access = 9,
                   .name = "m",
                   .desc = "()V",
                   .max_stack = 1,
                   .code = code,
                   .code_len = (uint32_t)k};
    if (conditional == 2) {
        m.smt = smt;
        m.smt_len = sizeof smt;
    }
    return one_method(major, &m, len);
}

static void test_branch_widening(void **state)
{
    (void)state;
    struct bci_hooks h = {
        .tracker_class = "T", .new_array_name = "na", .new_array_desc = "(Ljava/lang/Object;I)V"};
    struct bci_result r;
    size_t len;
    code_t c;
    uint8_t *cls = far_branch(52, 0, &len);
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.code[0], 0xc8); /* goto_w */
    assert_int_equal(be_u4(c.code + 1), c.len - 1);
    bci_free(&r);
    free(cls);

    cls = far_branch(49, 1, &len);
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    get_code(r.data, r.len, 0, &c);
    /* iconst_0; ifne +8; goto_w L */
    assert_memory_equal(c.code, ((uint8_t[]){0x03, 0x9a, 0, 8, 0xc8}), 5);
    assert_int_equal(1 + be_u4(c.code + 5) + 3, c.len - 1);
    bci_free(&r);
    free(cls);

    cls = far_branch(52, 1, &len);
    assert_int_equal(rewrite(cls, len, &h, &r), 0);
    assert_non_null(strstr(r.reason, "conditional branch overflow"));
    free(cls);

    /* with a frame already at the fall-through, version 52 can widen too */
    cls = far_branch(52, 2, &len);
    int ok = rewrite(cls, len, &h, &r);
    if (!ok) print_error("%s\n", r.reason);
    assert_int_equal(ok, 1);
    get_code(r.data, r.len, 0, &c);
    assert_memory_equal(c.code, ((uint8_t[]){0x03, 0x9a, 0, 8, 0xc8}), 5);
    bci_free(&r);
    free(cls);
}

/* static void m(int): tableswitch at 1 (2 pad bytes), returns at 24 and 25 */
static uint8_t *switch_class(size_t *len)
{
    static const uint8_t code[] = {0x1a, 0xaa, 0, 0, 0, 0, 0,  23, 0, 0, 0,  0,    0,
                                   0,    0,    1, 0, 0, 0, 24, 0,  0, 0, 23, 0xb1, 0xb1};
    static const uint8_t smt[] = {0, 2, 24, 0};
    cg_method m = {.access = 9,
                   .name = "m",
                   .desc = "(I)V",
                   .max_stack = 1,
                   .max_locals = 1,
                   .code = code,
                   .code_len = sizeof code,
                   .smt = smt,
                   .smt_len = sizeof smt};
    return one_method(52, &m, len);
}

static void test_switch_padding(void **state)
{
    (void)state;
    size_t len;
    uint8_t *cls = switch_class(&len);
    struct bci_result r;
    struct bci_hooks h = all_hooks;
    h.exit_catch_all = 0;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* entry: 6 bytes, so the switch opcode is at 7 and is padded to 8 */
    assert_int_equal(c.code[7], 0xaa);
    int32_t def = (int32_t)be_u4(c.code + 8), t0 = (int32_t)be_u4(c.code + 20),
            t1 = (int32_t)be_u4(c.code + 24);
    assert_int_equal(def, t1);
    /* each target is the exit hook before a return */
    assert_int_equal(c.code[7 + def], 0x10);
    assert_int_equal(c.code[7 + t0], 0x10);
    assert_int_equal(c.code[7 + t0 + 6], 0xb1);
    assert_int_equal(t0 - def, 7);
    bci_free(&r);
    free(cls);
}

/* Returns the body of Code attribute `name` of method 0 (malloc'd). */
static uint8_t *code_attr(const uint8_t *cls, size_t len, const char *name, uint32_t *n)
{
    classfile cf;
    assert_null(cf_parse(&cf, cls, len));
    const cf_attr *a = find_code(&cf, &cf.methods[0]);
    rd_t r;
    rd_init(&r, a->data, a->len);
    rd_bytes(&r, 4);
    rd_bytes(&r, rd_u4(&r));
    rd_bytes(&r, (size_t)rd_u2(&r) * 8);
    uint8_t *out = NULL;
    for (uint32_t k = rd_u2(&r); k > 0; k--) {
        uint32_t nm = rd_u2(&r), l = rd_u4(&r);
        const uint8_t *d = rd_bytes(&r, l);
        if (cp_utf8_eq(&cf.cp, nm, name)) {
            out = malloc(l);
            memcpy(out, d, l);
            *n = l;
        }
    }
    cf_free(&cf);
    return out;
}

static void test_type_annotation_offsets(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t obj = cg_class(g, "java/lang/Object"), ann = cg_utf8(g, "LA;");
    uint16_t init = cg_methodref(g, "java/lang/Object", "<init>", "()V");
    /* 0: new; 3: dup; 4: invokespecial; 7: astore_0; 8: return */
    uint8_t code[] = {0xbb, obj >> 8, obj & 255, 0x59, 0xb7, init >> 8, init & 255, 0x4b, 0xb1};
    uint8_t ta[] = {0,        2,         0x44, 0, 0, 0, ann >> 8, ann & 255, 0, 0, /* new at 0 */
                    0x40,     0,         1,    0, 8, 0, 1,        0,         0, 0,
                    ann >> 8, ann & 255, 0,    0}; /* local [8,9) */
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "m",
                                  .desc = "()V",
                                  .max_stack = 2,
                                  .max_locals = 1,
                                  .code = code,
                                  .code_len = sizeof code,
                                  .attr_name = "RuntimeVisibleTypeAnnotations",
                                  .attr = ta,
                                  .attr_len = sizeof ta});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.exit_catch_all = 0;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    uint32_t n;
    uint8_t *out = code_attr(r.data, r.len, "RuntimeVisibleTypeAnnotations", &n);
    assert_non_null(out);
    assert_int_equal(n, sizeof ta);
    /* entry 6 bytes + site 4 bytes (sipush-free: bipush 0; invokestatic) -> new at 10 */
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.code[10], 0xbb);
    assert_int_equal(be_u2(out + 3), 10);
    /* local range: start 8 -> 8 + 10 = 18 (return's exit hook begins there), length to end */
    assert_int_equal(be_u2(out + 13), 18);
    assert_int_equal(be_u2(out + 13) + be_u2(out + 15), c.len);
    free(out);
    bci_free(&r);
    free(cls);
}

static void test_limits(void **state)
{
    (void)state;
    uint8_t ret[] = {0xb1};
    struct bci_result r;
    size_t len;
    /* constant pool nearly full: the hooks' entries cannot be added */
    classgen *g = cg_new(52, "C", "java/lang/Object");
    cg_fill(g, 65520);
    cg_add_method(
        g, &(cg_method){.access = 9, .name = "m", .desc = "()V", .code = ret, .code_len = 1});
    uint8_t *cls = cg_finish(g, &len);
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 0);
    assert_non_null(strstr(r.reason, "constant pool overflow"));
    free(cls);

    /* code that would exceed 65535 bytes */
    static uint8_t big[65535];
    memset(big, 0, sizeof big);
    big[sizeof big - 1] = 0xb1;
    cls = one_method(
        52,
        &(cg_method){.access = 9, .name = "m", .desc = "()V", .code = big, .code_len = sizeof big},
        &len);
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 0);
    assert_non_null(strstr(r.reason, "code too large"));
    free(cls);

    /* versions outside 45..69 */
    for (uint16_t v = 44; v <= 70; v += 26) {
        cls = one_method(
            v, &(cg_method){.access = 9, .name = "m", .desc = "()V", .code = ret, .code_len = 1},
            &len);
        assert_int_equal(rewrite(cls, len, &all_hooks, &r), 0);
        assert_string_equal(r.reason, "unsupported class file version");
        free(cls);
    }
}

static void test_bad_hooks_and_tracker(void **state)
{
    (void)state;
    uint8_t ret[] = {0xb1};
    size_t len;
    struct bci_result r;
    uint8_t *cls = one_method(
        52, &(cg_method){.access = 9, .name = "m", .desc = "()V", .code = ret, .code_len = 1},
        &len);
    struct bci_hooks h = all_hooks;
    h.exit_desc = NULL;
    assert_int_equal(bci_rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "hook without descriptor");
    h = all_hooks;
    h.tracker_class = "C";
    assert_int_equal(bci_rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "tracker class");
    h = all_hooks;
    h.alloc_class = "C";
    assert_int_equal(bci_rewrite(cls, len, &h, &r), 0);
    assert_string_equal(r.reason, "tracker class");
    free(cls);
}

/* Entry/exit and allocation hooks may target two classes. */
static void test_hook_classes(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", NULL);
    uint16_t k = cg_class(g, "C");
    uint8_t code[] = {0xbb, (uint8_t)(k >> 8), (uint8_t)k, 0x57, 0xb1}; /* new C; pop; return */
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "m",
                                  .desc = "()V",
                                  .max_stack = 1,
                                  .code = code,
                                  .code_len = sizeof code});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.method_class = "M";
    h.alloc_class = "A";
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    classfile cf;
    assert_null(cf_parse(&cf, r.data, r.len));
    int owners = 0;
    for (uint16_t i = 1; i < cf.cp.n; i++) {
        const cp_ent *e = cp_get(&cf.cp, i, CP_METHODREF);
        const cp_ent *nt = e ? cp_get(&cf.cp, e->b, CP_NAMEANDTYPE) : NULL;
        if (!nt) continue;
        uint16_t n;
        const uint8_t *owner = cp_class_name(&cf.cp, e->a, &n);
        if (cp_utf8_eq(&cf.cp, nt->a, "en") || cp_utf8_eq(&cf.cp, nt->a, "ex"))
            owners += n == 1 && owner[0] == 'M';
        if (cp_utf8_eq(&cf.cp, nt->a, "nw")) owners += 10 * (n == 1 && owner[0] == 'A');
    }
    assert_int_equal(owners, 12);
    cf_free(&cf);
    bci_free(&r);
    free(cls);
}

/* Every truncation and many single-byte corruptions of a valid class must be
 * rejected or rewritten cleanly (ASan/UBSan builds check for overreads). */
static void test_malformed_inputs(void **state)
{
    (void)state;
    size_t len;
    uint8_t *cls = switch_class(&len);
    struct bci_result r;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, cls, n);
        assert_int_equal(bci_rewrite(cut, n, &all_hooks, &r), 0);
        assert_int_equal(bci_roundtrip(cut, n, &r), 0);
        free(cut);
    }
    uint8_t *mut = malloc(len);
    for (size_t i = 8; i < len; i++)
        for (int v = 0; v < 256; v += 51) {
            memcpy(mut, cls, len);
            mut[i] = (uint8_t)v;
            if (rewrite(mut, len, &all_hooks, &r)) bci_free(&r);
        }
    free(mut);
    free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_name),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_jsr_ret),
        cmocka_unit_test(test_add_field),
        cmocka_unit_test(test_untouched_methods),
        cmocka_unit_test(test_branch_widening),
        cmocka_unit_test(test_switch_padding),
        cmocka_unit_test(test_type_annotation_offsets),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_bad_hooks_and_tracker),
        cmocka_unit_test(test_hook_classes),
        cmocka_unit_test(test_malformed_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
