/* Unit tests of what the rewriter injects on generated classes: entry and
 * exit hooks, the added local, allocation and invoke sites, constructors,
 * leaves. */
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

static void test_entry_exit_static(void **state)
{
    (void)state;
    uint8_t code[] = {0x04, 0xac}; /* iconst_1; ireturn */
    cg_method m = {
        .access = 9, .name = "m", .desc = "()I", .max_stack = 1, .code = code, .code_len = 2};
    size_t len;
    uint8_t *cls = one_method(52, &m, &len);
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* method number defaults to the method index (0), class number 7 */
    const uint8_t *en = c.code, *body = c.code + 6, *ex = c.code + 7;
    assert_memory_equal(en, ((uint8_t[]){0x10, 7, 0x03, 0xb8}), 4);
    assert_int_equal(body[0], 0x04);
    assert_memory_equal(ex, ((uint8_t[]){0x10, 7, 0x03, 0xb8}), 4);
    assert_int_equal(c.code[13], 0xac);
    /* catch-all handler: same call, then athrow, covering the original body */
    assert_memory_equal(c.code + 14, ((uint8_t[]){0x10, 7, 0x03, 0xb8}), 4);
    assert_int_equal(c.code[20], 0xbf);
    assert_int_equal(c.len, 21);
    assert_int_equal(c.nexc, 1);
    assert_memory_equal(c.exc[0], ((uint16_t[]){6, 14, 14, 0}), sizeof c.exc[0]);
    assert_true(c.has_smt); /* added for the handler frame (version 52) */
    assert_int_equal(c.max_stack, 3);
    assert_int_equal(r.methods, 1);
    assert_int_equal(r.past_max_inline, 0); /* 2 -> 21 bytes */
    bci_free(&r);
    free(cls);
}

/* A method of `len` bytes (nops, iconst_1, ireturn), rewritten with entry
 * and exit hooks: which inlining sizes it grew past. */
static void check_growth(uint32_t len, unsigned past_max_inline, unsigned past_freq_inline)
{
    uint8_t *code = calloc(len, 1);
    code[len - 2] = 0x04;
    code[len - 1] = 0xac;
    cg_method m = {
        .access = 9, .name = "m", .desc = "()I", .max_stack = 1, .code = code, .code_len = len};
    size_t n;
    uint8_t *cls = one_method(52, &m, &n);
    struct bci_result r;
    assert_int_equal(rewrite(cls, n, &all_hooks, &r), 1);
    assert_int_equal(r.past_max_inline, past_max_inline);
    assert_int_equal(r.past_freq_inline, past_freq_inline);
    bci_free(&r);
    free(cls);
    free(code);
}

static void test_growth_past_inline_sizes(void **state)
{
    (void)state;
    check_growth(35, 1, 0);
    check_growth(36, 0, 0); /* already past 35 */
    check_growth(325, 0, 1);
}

static void test_branch_to_zero_skips_entry(void **state)
{
    (void)state;
    /* 0: iinc 0 1; 3: goto 0 -- frame at 0 (same_frame, delta 0) */
    uint8_t code[] = {0x84, 0, 1, 0xa7, 0xff, 0xfd};
    uint8_t smt[] = {0, 1, 0};
    cg_method m = {.access = 9,
                   .name = "m",
                   .desc = "(I)V",
                   .max_locals = 1,
                   .code = code,
                   .code_len = sizeof code,
                   .smt = smt,
                   .smt_len = sizeof smt};
    size_t len;
    uint8_t *cls = one_method(52, &m, &len);
    struct bci_hooks h = all_hooks;
    h.exit_name = NULL;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.code[6], 0x84);
    assert_int_equal(c.code[9], 0xa7);
    assert_int_equal((int16_t)be_u2(c.code + 10), -3); /* back to iinc, not the hook */
    bci_free(&r);
    free(cls);
}

/* bci_hooks.long_number of the long form: the number + 1 in the top bits. */
static int64_t high_number(int n)
{
    return (int64_t)(n + 1) << 42;
}

/* The long form of entry_local: entry gets long_number's constant (ldc2_w
 * of a Long the pool gains), lstore/lload of a two-slot local, the local
 * passed to the allocation hooks, and full frames declaring a Long. */
static void test_long_local(void **state)
{
    (void)state;
    /* 0: iconst_1; newarray int; pop; 4: iload_0; ifeq 9; 8: return; 9: return */
    uint8_t code[] = {0x04, 0xbc, 10, 0x57, 0x1a, 0x99, 0, 4, 0xb1, 0xb1};
    uint8_t smt[] = {0, 1, 9}; /* same_frame at 9 */
    cg_method m = {.access = 9,
                   .name = "m",
                   .desc = "(I)V",
                   .max_stack = 1,
                   .max_locals = 1,
                   .code = code,
                   .code_len = sizeof code,
                   .smt = smt,
                   .smt_len = sizeof smt};
    size_t len;
    uint8_t *cls = one_method(52, &m, &len);
    struct bci_hooks h = all_hooks;
    h.exit_catch_all = 0;
    h.entry_local = BCI_LOCAL_LONG;
    h.long_number = high_number;
    h.alloc_local = 1;
    h.entry_desc = "(J)J";
    h.exit_desc = "(J)V";
    h.resume_name = "rs";
    h.resume_desc = "(JJ)V";
    h.new_array_desc = "(Ljava/lang/Object;IJ)V";
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    /* CONSTANT_Long 1 << 42: tag 5, high word 0x400, low word 0. */
    static const uint8_t one_at_42[] = {5, 0, 0, 4, 0, 0, 0, 0, 0};
    assert_non_null(memmem(r.data, r.len, one_at_42, sizeof one_at_42));
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.max_locals, 3);
    assert_int_equal(c.max_stack, 5);  /* array, dup, site, the long */
    assert_int_equal(c.code[0], 0x14); /* ldc2_w: method 0 */
    assert_int_equal(c.code[3], 0xb8); /* entry */
    assert_int_equal(c.code[6], 0x40); /* lstore_1 */
    assert_memory_equal(c.code + 7, ((uint8_t[]){0x04, 0xbc, 10}), 3);
    /* dup; iconst_1 (the site: its offset); lload_1; invokestatic */
    assert_memory_equal(c.code + 10, ((uint8_t[]){0x59, 0x04, 0x1f, 0xb8}), 4);
    assert_int_equal(c.code[16], 0x57);
    assert_int_equal(c.code[17], 0x1a);
    assert_int_equal(c.code[18], 0x99);
    assert_memory_equal(c.code + 21, ((uint8_t[]){0x1f, 0xb8}), 2); /* exit before return */
    assert_int_equal(c.code[25], 0xb1);
    assert_true(c.has_smt);
    /* One full frame at the second return's exit code: locals Integer, Long;
     * empty stack. */
    assert_memory_equal(c.smt, ((uint8_t[]){0, 1, 255, 0, 26, 0, 2, 1, 4, 0, 0}), 11);
    bci_free(&r);
    free(cls);
}

struct site_log {
    int n;
    uint32_t bci[8];
    uint8_t op[8];
    char type[8][32];
    int32_t line[8];
};

static int log_site(void *ctx, const struct bci_site *s)
{
    struct site_log *l = ctx;
    l->bci[l->n] = s->bci;
    l->op[l->n] = s->opcode;
    l->line[l->n] = s->line;
    strncpy(l->type[l->n], s->type, sizeof l->type[0] - 1);
    return 1000 + l->n++;
}

static void test_allocation_sites(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t obj = cg_class(g, "java/lang/Object"), str = cg_class(g, "java/lang/String");
    uint16_t arr = cg_class(g, "[[I"), init = cg_methodref(g, "java/lang/Object", "<init>", "()V");
    uint8_t code[] = {
        0xbb, obj >> 8, obj & 255,                   /* 0: new Object */
        0x59, 0xb7,     init >> 8, init & 255,       /* 3: dup; invokespecial */
        0x57,                                        /* 7: pop */
        0x04, 0xbc,     10,        0x57,             /* 8: iconst_1; newarray int; pop */
        0x04, 0xbd,     str >> 8,  str & 255,  0x57, /* 12: iconst_1; anewarray String; pop */
        0x04, 0x04,     0xc5,      arr >> 8,   arr & 255, 2, 0x57, /* 17: multianewarray [[I 2 */
        0xb1};
    /* lines: 0 -> 10, 8 -> 11, 17 -> 12 (listed out of order) */
    uint8_t lnt[] = {0, 3, 0, 17, 0, 12, 0, 0, 0, 10, 0, 8, 0, 11};
    size_t len;
    uint8_t *cls = cg_finish_with_lines(g, 2, code, sizeof code, lnt, sizeof lnt, &len);
    struct site_log log = {0};
    struct bci_hooks h = all_hooks;
    h.site_number = log_site;
    h.ctx = &log;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    assert_int_equal(log.n, 4);
    assert_int_equal(r.sites, 4);
    assert_memory_equal(log.bci, ((uint32_t[]){0, 9, 13, 19}), 16);
    assert_memory_equal(log.op, ((uint8_t[]){0xbb, 0xbc, 0xbd, 0xc5}), 4);
    assert_string_equal(log.type[0], "Ljava/lang/Object;");
    assert_string_equal(log.type[1], "[I");
    assert_string_equal(log.type[2], "[Ljava/lang/String;");
    assert_string_equal(log.type[3], "[[I");
    assert_memory_equal(log.line, ((int32_t[]){10, 11, 11, 12}), 16);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* entry (6 bytes: bipush 7, iconst_0, invokestatic), then site 1000 before new */
    assert_memory_equal(c.code + 6, ((uint8_t[]){0x11, 0x03, 0xe8, 0xb8}), 4);
    assert_int_equal(c.code[12], 0xbb);
    /* after newarray: dup; sipush 1001; invokestatic */
    uint8_t *na = memchr(c.code + 13, 0xbc, c.len - 13);
    assert_non_null(na);
    assert_memory_equal(na + 2, ((uint8_t[]){0x59, 0x11, 0x03, 0xe9, 0xb8}), 5);
    assert_int_equal(c.max_stack, 4);
    bci_free(&r);
    free(cls);
}

/* Records each invocation offered; numbers the ones named "keep" or "clone". */
struct invoke_log {
    int n;
    char what[4][64];
    uint32_t bci[4];
    int32_t line[4];
};

static int log_invoke(void *ctx, const struct bci_invoke *inv)
{
    struct invoke_log *l = ctx;
    if (l->n == 4) return BCI_SKIP;
    snprintf(l->what[l->n], sizeof l->what[0], "%02x %s.%s%s", inv->opcode, inv->owner, inv->name,
             inv->desc);
    l->bci[l->n] = inv->bci;
    l->line[l->n++] = inv->line;
    return strcmp(inv->name, "skip") == 0 ? BCI_SKIP : 2000 + (int)inv->bci;
}

static void test_invoke_results(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t keep = cg_methodref(g, "java/lang/Integer", "keep", "(I)Ljava/lang/Integer;");
    uint16_t prim = cg_methodref(g, "C", "prim", "()I");
    uint16_t skip = cg_methodref(g, "C", "skip", "()[I");
    uint16_t clone = cg_methodref(g, "[I", "clone", "()Ljava/lang/Object;");
    uint8_t code[] = {0x04, 0xb8,       keep >> 8,   keep & 255,
                      0x57,                                /* 0: iconst_1; invokestatic keep; pop */
                      0xb8, prim >> 8,  prim & 255,  0x57, /* 5: invokestatic prim (int); pop */
                      0xb8, skip >> 8,  skip & 255,        /* 9: invokestatic skip */
                      0xb6, clone >> 8, clone & 255, 0x57, /* 12: invokevirtual [I.clone; pop */
                      0xb1};
    uint8_t lnt[] = {0, 2, 0, 0, 0, 20, 0, 9, 0, 21};
    size_t len;
    uint8_t *cls = cg_finish_with_lines(g, 1, code, sizeof code, lnt, sizeof lnt, &len);
    struct invoke_log log = {0};
    struct bci_hooks h = {.tracker_class = "T",
                          .invoke_name = "iv",
                          .invoke_desc = "(Ljava/lang/Object;I)V",
                          .invoke_number = log_invoke,
                          .ctx = &log};
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    /* The int-returning call is never offered. */
    assert_int_equal(log.n, 3);
    assert_string_equal(log.what[0], "b8 java/lang/Integer.keep(I)Ljava/lang/Integer;");
    assert_string_equal(log.what[1], "b8 C.skip()[I");
    assert_string_equal(log.what[2], "b6 [I.clone()Ljava/lang/Object;");
    assert_memory_equal(log.bci, ((uint32_t[]){1, 9, 12}), 12);
    assert_memory_equal(log.line, ((int32_t[]){20, 21, 21}), 12);
    assert_int_equal(r.invokes, 2);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* after each kept invoke: dup; sipush 2000 + bci; invokestatic T.iv */
    assert_memory_equal(
        c.code + 1, ((uint8_t[]){0xb8, keep >> 8, keep & 255, 0x59, 0x11, 0x07, 0xd1, 0xb8}), 8);
    uint8_t *after = c.code + 1 + 3 + 7 + 1 + 3 + 1 + 3; /* keep+hook; pop; prim; pop; skip */
    assert_memory_equal(
        after, ((uint8_t[]){0xb6, clone >> 8, clone & 255, 0x59, 0x11, 0x07, 0xdc, 0xb8}), 8);
    assert_int_equal(c.max_stack, 3);
    bci_free(&r);
    free(cls);
}

/* Marks the invocations named "make". */
static int marks_make(void *ctx, const struct bci_invoke *inv)
{
    (void)ctx;
    return strcmp(inv->name, "make") == 0;
}

/* A marked invoke gets `dup; invokestatic mark` (its last argument, a
 * reference) right before it and the invoke hook after it; one whose last
 * argument is an int is not marked. */
static void test_marked_invokes(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t make = cg_methodref(g, "C", "make", "(Ljava/lang/Object;)Ljava/lang/Object;");
    uint16_t make_int = cg_methodref(g, "C", "make", "(I)Ljava/lang/Object;");
    uint8_t code[] = {0x01, 0xb8, make >> 8,     make & 255,     0x57, /* aconst_null; make; pop */
                      0x04, 0xb8, make_int >> 8, make_int & 255, 0x57, /* iconst_1; make(I); pop */
                      0xb1};
    size_t len;
    uint8_t lnt[] = {0, 0};
    uint8_t *cls = cg_finish_with_lines(g, 1, code, sizeof code, lnt, sizeof lnt, &len);
    struct invoke_log log = {0};
    struct bci_hooks h = {.tracker_class = "T",
                          .invoke_name = "iv",
                          .invoke_desc = "(Ljava/lang/Object;I)V",
                          .invoke_number = log_invoke,
                          .invoke_marked = marks_make,
                          .mark_name = "mk",
                          .mark_desc = "(Ljava/lang/Object;)V",
                          .ctx = &log};
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    assert_int_equal(r.invokes, 2);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* aconst_null; dup; invokestatic T.mk; invokestatic make; dup; sipush; invokestatic T.iv */
    assert_int_equal(c.code[0], 0x01);
    assert_int_equal(c.code[1], 0x59);
    assert_int_equal(c.code[2], 0xb8);
    uint16_t mk = (uint16_t)(c.code[3] << 8 | c.code[4]);
    assert_memory_equal(c.code + 5, ((uint8_t[]){0xb8, make >> 8, make & 255, 0x59, 0x11}), 5);
    assert_int_not_equal(mk, make);
    /* the int form: iconst_1 straight before its invoke */
    const uint8_t *second = c.code + 5 + 3 + 7 + 1;
    assert_memory_equal(second, ((uint8_t[]){0x04, 0xb8, make_int >> 8, make_int & 255}), 4);
    assert_int_equal(c.max_stack, 3);
    bci_free(&r);
    free(cls);
}

static void test_constructor_catch_starts_after_super(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", "java/lang/Object");
    uint16_t init = cg_methodref(g, "java/lang/Object", "<init>", "()V");
    uint16_t obj = cg_class(g, "java/lang/Object");
    /* new Object; dup; invokespecial; pop (an argument); aload_0; invokespecial; return */
    uint8_t code[] = {0xbb, obj >> 8, obj & 255, 0x59,      0xb7,       init >> 8, init & 255,
                      0x57, 0x2a,     0xb7,      init >> 8, init & 255, 0xb1};
    cg_add_method(g, &(cg_method){.access = 1,
                                  .name = "<init>",
                                  .desc = "()V",
                                  .max_stack = 2,
                                  .max_locals = 1,
                                  .code = code,
                                  .code_len = sizeof code});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.new_obj_name = NULL;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.nexc, 1);
    /* entry is 6 bytes (bipush 7; iconst_0; invokestatic), body starts at 6;
     * the super call (orig 9) ends at orig 12 -> new 18 */
    assert_int_equal(c.code[6 + 9], 0xb7);
    assert_int_equal(c.exc[0][0], 18);
    assert_int_equal(c.exc[0][1], c.exc[0][2]);
    assert_int_equal(r.ctor_no_catch_all, 0);
    bci_free(&r);
    free(cls);
}

static void test_object_init(void **state)
{
    (void)state;
    uint8_t ret[] = {0xb1};
    classgen *g = cg_new(52, "java/lang/Object", NULL);
    cg_add_method(g, &(cg_method){.access = 1,
                                  .name = "<init>",
                                  .desc = "()V",
                                  .max_locals = 1,
                                  .code = ret,
                                  .code_len = 1});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = {.tracker_class = "T",
                          .object_init_name = "oi",
                          .object_init_desc = "(Ljava/lang/Object;)V"};
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.len, 5);
    assert_int_equal(c.code[0], 0x2a);
    assert_int_equal(c.code[1], 0xb8);
    assert_int_equal(c.code[4], 0xb1);
    bci_free(&r);
    free(cls);
}

/* entry_exit_skip_leaves: a method without invoke or allocation keeps its
 * code; one with an invoke gets entry/exit. */
static void test_skip_leaves(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", NULL);
    uint16_t mref = cg_methodref(g, "C", "leaf", "()I");
    uint8_t leaf[] = {0x03, 0xac}; /* iconst_0; ireturn */
    uint8_t caller[] = {0xb8, (uint8_t)(mref >> 8), (uint8_t)mref,
                        0xac}; /* invokestatic; ireturn */
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "leaf",
                                  .desc = "()I",
                                  .max_stack = 1,
                                  .code = leaf,
                                  .code_len = sizeof leaf});
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "caller",
                                  .desc = "()I",
                                  .max_stack = 1,
                                  .code = caller,
                                  .code_len = sizeof caller});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.entry_exit_skip_leaves = 1;
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    assert_int_equal(c.len, sizeof leaf);
    get_code(r.data, r.len, 1, &c);
    assert_true(c.len > sizeof caller);
    bci_free(&r);
    free(cls);
}

/* Short leaves get one leaf call per exit instead of entry + exit; a
 * method with a backward branch keeps both. */
static void test_short_leaves(void **state)
{
    (void)state;
    classgen *g = cg_new(49, "C", NULL);
    uint8_t leaf[] = {0x03, 0xac};       /* iconst_0; ireturn */
    uint8_t loop[] = {0xa7, 0x00, 0x00}; /* goto self */
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "leaf",
                                  .desc = "()I",
                                  .max_stack = 1,
                                  .code = leaf,
                                  .code_len = sizeof leaf});
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "loop",
                                  .desc = "()V",
                                  .max_stack = 0,
                                  .code = loop,
                                  .code_len = sizeof loop});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    struct bci_result plain, leafy;
    assert_int_equal(rewrite(cls, len, &h, &plain), 1);
    h.leaf_name = "lf";
    h.leaf_desc = "(II)V";
    assert_int_equal(rewrite(cls, len, &h, &leafy), 1);
    code_t a, b;
    get_code(plain.data, plain.len, 0, &a);
    get_code(leafy.data, leafy.len, 0, &b);
    /* bipush 7; iconst_0; invokestatic: the entry call is gone */
    assert_int_equal(b.len, a.len - 6);
    get_code(plain.data, plain.len, 1, &a);
    get_code(leafy.data, leafy.len, 1, &b);
    assert_int_equal(b.len, a.len);
    bci_free(&plain);
    bci_free(&leafy);
    free(cls);
}

/* The name of the hook called by the invokestatic at code[at]. */
static int hook_is(const uint8_t *cls, size_t len, const code_t *c, uint32_t at, const char *name)
{
    classfile cf;
    assert_null(cf_parse(&cf, cls, len));
    assert_int_equal(c->code[at], 0xb8);
    const cp_ent *ref = cp_get(&cf.cp, (uint32_t)c->code[at + 1] << 8 | c->code[at + 2], 10);
    const cp_ent *nt = ref ? cp_get(&cf.cp, ref->b, 12) : NULL;
    int is = nt && cp_utf8_eq(&cf.cp, nt->a, name);
    cf_free(&cf);
    return is;
}

/* A method that switches the current thread (it calls
 * Thread.setCurrentThread) gets switch_from at entry and switch_to at its
 * exits, in the catch-all too; other methods keep entry and exit. */
static void test_thread_switchers(void **state)
{
    (void)state;
    classgen *g = cg_new(52, "C", NULL);
    uint16_t set = cg_methodref(g, "java/lang/Thread", "setCurrentThread", "(Ljava/lang/Thread;)V");
    /* aload_0; aload_0; invokevirtual setCurrentThread; return */
    uint8_t sw[] = {0x2a, 0x2a, 0xb6, (uint8_t)(set >> 8), (uint8_t)set, 0xb1};
    uint8_t plain[] = {0xb1};
    cg_add_method(g, &(cg_method){.access = 9,
                                  .name = "sw",
                                  .desc = "(Ljava/lang/Thread;)V",
                                  .max_stack = 2,
                                  .max_locals = 1,
                                  .code = sw,
                                  .code_len = sizeof sw});
    cg_add_method(
        g,
        &(cg_method){
            .access = 9, .name = "plain", .desc = "()V", .code = plain, .code_len = sizeof plain});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.switch_from_name = "from";
    h.switch_from_desc = "(II)V";
    h.switch_to_name = "to";
    h.switch_to_desc = "(II)V";
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* bipush 7; iconst_0; invokestatic from | the body | bipush 7;
     * iconst_0; invokestatic to; return | catch-all: the same call, athrow */
    assert_true(hook_is(r.data, r.len, &c, 3, "from"));
    assert_true(hook_is(r.data, r.len, &c, 6 + sizeof sw - 1 + 3, "to"));
    assert_true(hook_is(r.data, r.len, &c, c.len - 4, "to"));
    get_code(r.data, r.len, 1, &c);
    assert_true(hook_is(r.data, r.len, &c, 3, "en"));
    assert_true(hook_is(r.data, r.len, &c, 9, "ex"));
    bci_free(&r);
    /* Without those hooks, entry and exit as everywhere. */
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 1);
    get_code(r.data, r.len, 0, &c);
    assert_true(hook_is(r.data, r.len, &c, 3, "en"));
    bci_free(&r);
    free(cls);
}

/* Continuation.run()V gets no entry_local hooks (a yield leaves it with
 * the frames above it to come back); its allocations are still hooked, and
 * with entry/exit it is a method like any other. */
static void test_continuation_run(void **state)
{
    (void)state;
    uint8_t code[] = {0x04, 0xbc, 10, 0x57, 0xb1}; /* iconst_1; newarray int; pop; return */
    classgen *g = cg_new(52, "jdk/internal/vm/Continuation", NULL);
    cg_add_method(g, &(cg_method){.access = 1,
                                  .name = "run",
                                  .desc = "()V",
                                  .max_stack = 1,
                                  .max_locals = 1,
                                  .code = code,
                                  .code_len = sizeof code});
    size_t len;
    uint8_t *cls = cg_finish(g, &len);
    struct bci_hooks h = all_hooks;
    h.exit_catch_all = 0;
    h.entry_local = BCI_LOCAL_INT;
    h.entry_desc = "(I)I";
    h.exit_desc = "(I)V";
    h.resume_name = "rs";
    h.resume_desc = "(I)V";
    struct bci_result r;
    assert_int_equal(rewrite(cls, len, &h, &r), 1);
    code_t c;
    get_code(r.data, r.len, 0, &c);
    /* iconst_1; newarray int; dup; iconst_1 (the site: its offset); invokestatic na */
    assert_int_equal(c.code[0], 0x04);
    assert_true(hook_is(r.data, r.len, &c, 5, "na"));
    assert_int_equal(c.max_locals, 1);
    bci_free(&r);
    assert_int_equal(rewrite(cls, len, &all_hooks, &r), 1);
    get_code(r.data, r.len, 0, &c);
    assert_true(hook_is(r.data, r.len, &c, 3, "en"));
    bci_free(&r);
    free(cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_exit_static),
        cmocka_unit_test(test_growth_past_inline_sizes),
        cmocka_unit_test(test_branch_to_zero_skips_entry),
        cmocka_unit_test(test_allocation_sites),
        cmocka_unit_test(test_invoke_results),
        cmocka_unit_test(test_marked_invokes),
        cmocka_unit_test(test_constructor_catch_starts_after_super),
        cmocka_unit_test(test_object_init),
        cmocka_unit_test(test_skip_leaves),
        cmocka_unit_test(test_short_leaves),
        cmocka_unit_test(test_long_local),
        cmocka_unit_test(test_thread_switchers),
        cmocka_unit_test(test_continuation_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
