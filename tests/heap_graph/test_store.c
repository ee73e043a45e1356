/* The on-disk index: a written image attaches and answers like the computed
 * graph; a mismatched key, truncation or any inconsistent array is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/findings.h"
#include "cli/heap/store.h"
#include "hpbuild.h"

enum { N = 50 };

/* A class with one reference field, N instances in a tree plus a cycle, a root. */
static void build(hb_buf *b)
{
    hb_init(b, "1.0.2", 8);
    hb_utf8(b, 1, "Node");
    hb_utf8(b, 2, "next");
    hb_load_class(b, 1, 0x100, 0, 1);
    size_t rec = hb_begin(b, 0x0C);
    uint64_t names[] = {2};
    uint8_t types[] = {2};
    hb_class_dump(b, 0x100, 0, 8, 1, names, types);
    for (uint64_t i = 1; i <= N; i++) {
        uint64_t next = i == N ? 0x1000 + 16 * 3 : 0x1000 + 16 * (i / 2 + 1);
        uint8_t v[8];
        for (int j = 0; j < 8; j++)
            v[j] = (uint8_t)(next >> (56 - 8 * j));
        hb_instance(b, 0x1000 + 16 * i, 0, 0x100, v, sizeof v);
    }
    hb_u1(b, 0xFF);
    hb_id(b, 0x1000 + 16 * N);
    hb_end(b, rec);
}

typedef struct {
    hb_buf b;
    hp_file f;
    hp_heap h;
    hp_store_key k;
    char *image;
    size_t len;
} fixture;

static void setup(fixture *x)
{
    hp_error e;
    build(&x->b);
    assert_int_equal(hp_open_mem(&x->f, "mem", x->b.data, x->b.len, &e), 0);
    hp_opts o = {.model = hp_model_default(), .no_index = 1};
    assert_int_equal(hp_heap_open(&x->h, &x->f, &o, HP_HEAP_DOMINATORS, stderr), 0);
    x->k =
        (hp_store_key){.size = x->b.len, .mtime_s = 7, .dump = 0, .id_size = 8, .model = "coops"};
    FILE *m = open_memstream(&x->image, &x->len);
    assert_int_equal(hp_store_write(&x->h, &x->k, m), 0);
    fclose(m);
}

static void teardown(fixture *x)
{
    free(x->image);
    hp_heap_close(&x->h);
    hb_free(&x->b);
}

/* Attaches a (possibly changed) image to a fresh heap over the same index. */
static int attach(fixture *x, const hp_store_key *k, size_t len, hp_heap *t)
{
    memset(t, 0, sizeof *t);
    t->ix = x->h.ix;
    int rc = hp_store_attach(t, (const uint8_t *)x->image, len, k, hp_model_default());
    return rc;
}

static void detach(hp_heap *t)
{
    hp_findings_free(t->fx);
    free(t->fx);
    hp_graph_free(&t->g);
}

/* Whatever an attached index's findings name is in range. */
static void findings_usable(const hp_heap *t)
{
    const hp_findings *fx = t->fx;
    uint32_t n = t->g.obj.n;
    for (size_t i = 0; i < fx->nsuspects; i++) {
        assert_true(fx->suspects[i].object < n);
        assert_true(fx->suspects[i].row || fx->suspects[i].accumulation < n);
    }
    for (int k = 0; k < HP_WASTE_KINDS; k++)
        assert_true(fx->waste.kinds[k].sample < n || fx->waste.kinds[k].sample == HP_NO_OBJECT);
    for (size_t i = 0; i < fx->waste.ndups; i++)
        assert_true(fx->waste.dups[i].string < n);
}

static void round_trip(void **state)
{
    (void)state;
    fixture x;
    hp_heap t;
    setup(&x);
    assert_int_equal(attach(&x, &x.k, x.len, &t), 0);
    assert_int_equal(t.g.obj.n, x.h.g.obj.n);
    for (uint32_t i = 0; i < t.g.obj.n; i++) {
        assert_int_equal(hp_dom_retained(&t.d, i), hp_dom_retained(&x.h.d, i));
        assert_int_equal(hp_dom_idom(&t.d, i), hp_dom_idom(&x.h.d, i));
        assert_int_equal(hp_graph_shallow(&t.g, i), hp_graph_shallow(&x.h.g, i));
    }
    assert_int_equal(hp_objects_find(&t.g.obj, 0x1000 + 16 * 7), 7); /* after the class */
    assert_int_equal(t.g.classes.n, 1);
    /* The findings: paths, histogram with retained sizes, suspects. */
    const hp_findings *a = t.fx, *b = x.h.fx;
    assert_memory_equal(t.g.classof, x.h.g.classof, (size_t)t.g.obj.n * 4);
    assert_int_equal(a->histo.nrows, 1);
    assert_int_equal(a->histo.rows[0].count, N);
    assert_int_equal(a->histo.rows[0].retained, b->histo.rows[0].retained);
    assert_true(a->histo.rows[0].retained > 0);
    assert_int_equal(a->nsuspects, b->nsuspects);
    assert_true(a->nsuspects > 0);
    assert_int_equal(a->suspects[0].object, b->suspects[0].object);
    assert_int_equal(a->suspects[0].retained, b->suspects[0].retained);
    findings_usable(&t);
    detach(&t);
    teardown(&x);
}

static void refuses(void **state)
{
    (void)state;
    fixture x;
    hp_heap t;
    setup(&x);
    hp_store_key other = x.k;
    other.mtime_ns = 1; /* the dump changed */
    assert_int_equal(attach(&x, &other, x.len, &t), -1);
    assert_int_equal(attach(&x, &x.k, x.len - 8, &t), -1); /* truncated */
    assert_int_equal(attach(&x, &x.k, 20, &t), -1);

    /* Every byte after the header, flipped in turn: refused or still consistent. */
    size_t header = x.len;
    for (size_t at = 0; at < x.len; at++) {
        x.image[at] ^= 0x40;
        if (attach(&x, &x.k, x.len, &t) == 0) {
            for (uint32_t i = 0; i < t.g.obj.n; i++) {
                assert_true(hp_dom_idom(&t.d, i) == HP_NO_OBJECT ||
                            hp_dom_idom(&t.d, i) < t.g.obj.n);
                for (uint32_t e = t.g.out_start[i]; e < t.g.out_start[i + 1]; e++)
                    assert_true(HP_EDGE_TARGET(t.g.out[e]) < t.g.obj.n);
            }
            findings_usable(&t);
            detach(&t);
        } else if (header == x.len) {
            header = at;
        }
        x.image[at] ^= 0x40;
    }
    assert_true(header < 16); /* the magic is checked first */
    teardown(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(round_trip), cmocka_unit_test(refuses)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
