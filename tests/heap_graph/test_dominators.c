/* Dominators and retained sizes over hand-built dumps, checked against a
 * naive set-intersection dominator computation on random graphs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/heap/findings.h"
#include "cli/heap/heap.h"
#include "cli/heap/store.h"
#include "hpbuild.h"

#define MAXN 40
#define BASE 0x1000 /* object i has ID BASE + 16 * i */

typedef struct {
    int n, adj[MAXN][MAXN], rooted[MAXN];
} rgraph;

/* Every node is an Object[] holding its successors; roots are ROOT UNKNOWN. */
static void build_dump(hb_buf *b, const rgraph *r)
{
    hb_init(b, "1.0.2", 8);
    size_t rec = hb_begin(b, 0x0C);
    for (int i = 0; i < r->n; i++) {
        if (!r->rooted[i]) continue;
        hb_u1(b, 0xFF);
        hb_id(b, BASE + 16 * (uint64_t)i);
    }
    for (int i = 0; i < r->n; i++) {
        uint64_t elems[MAXN + 1];
        uint32_t k = 0;
        for (int j = 0; j < r->n; j++)
            if (r->adj[i][j]) elems[k++] = BASE + 16 * (uint64_t)j;
        elems[k++] = 0x999999; /* dangling: dropped from the graph */
        hb_obj_array(b, BASE + 16 * (uint64_t)i, 0x77, k, elems);
    }
    hb_end(b, rec);
}

/* dom[v] as bit sets; node r->n is the virtual root, parent of the roots and of
 * every node unreachable from them. */
static void naive(const rgraph *r, uint64_t dom[MAXN + 1], int reach[MAXN])
{
    int n = r->n, changed = 1;
    memset(reach, 0, MAXN * sizeof *reach);
    for (int i = 0; i < n; i++)
        reach[i] = r->rooted[i];
    while (changed) {
        changed = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (reach[i] && r->adj[i][j] && !reach[j]) reach[j] = changed = 1;
    }
    uint64_t all = (n + 1 == 64) ? ~0ull : (1ull << (n + 1)) - 1;
    for (int i = 0; i < n; i++)
        dom[i] = all;
    dom[n] = 1ull << n;
    changed = 1;
    while (changed) {
        changed = 0;
        for (int v = 0; v < n; v++) {
            uint64_t d = (r->rooted[v] || !reach[v]) ? dom[n] : all;
            for (int u = 0; u < n; u++)
                if (r->adj[u][v]) d &= dom[u];
            d |= 1ull << v;
            if (d != dom[v]) {
                dom[v] = d;
                changed = 1;
            }
        }
    }
}

/* Graph and dominators of an in-memory dump. */
static void open_heap(hp_heap *h, hp_file *f, const hb_buf *b)
{
    hp_error e;
    hp_opts o = {.model = hp_model_default(), .no_index = 1};
    assert_int_equal(hp_open_mem(f, "t", b->data, b->len, &e), 0);
    assert_int_equal(hp_heap_open(h, f, &o, HP_HEAP_DOMINATORS, stderr), HP_EXIT_OK);
}

/* The same, built through an index file (arrays written out as they are done,
 * then mapped back), as when a dump's directory is writable. */
static void open_heap_spilled(hp_heap *h, hp_file *f, const hb_buf *b)
{
    hp_error e;
    hp_spill sp;
    hp_store_key key = {.size = b->len, .id_size = 8, .model = "coops"};
    char dir[] = "/tmp/hprof-test-XXXXXX", tmp[80], final[64];
    assert_non_null(mkdtemp(dir));
    snprintf(final, sizeof final, "%s/index", dir);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", final);
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    assert_int_equal(hp_open_mem(f, "t", b->data, b->len, &e), 0);
    memset(h, 0, sizeof *h);
    assert_int_equal(hp_index_build(&h->ix, f, 0, &e), 0);
    key.id_size = f->id_size;
    hp_spill_init(&sp, fd);
    assert_int_equal(hp_heap_build(h, hp_model_default(), &sp, &e), 0);
    assert_int_equal(hp_store_commit(h, &sp, &key, tmp, &e), 0); /* renamed to `final` */
    close(fd);
    assert_int_equal(unlink(final), 0);
    assert_int_equal(rmdir(dir), 0);
    assert_non_null(h->store);
}

/* The findings an index holds equal those computed in memory. */
static void same_findings(const hp_findings *a, const hp_findings *b)
{
    assert_int_equal(a->histo.nrows, b->histo.nrows);
    for (size_t i = 0; i < a->histo.nrows; i++) {
        const hp_histo_row *x = &a->histo.rows[i], *y = &b->histo.rows[i];
        assert_true(x->class_id == y->class_id && x->prim_type == y->prim_type);
        assert_true(x->count == y->count && x->bytes == y->bytes && x->retained == y->retained);
    }
    for (int k = 0; k < HP_WASTE_KINDS; k++)
        assert_memory_equal(&a->waste.kinds[k], &b->waste.kinds[k], sizeof a->waste.kinds[k]);
    assert_int_equal(a->waste.ndups, b->waste.ndups);
    assert_int_equal(a->nsuspects, b->nsuspects);
    for (size_t i = 0; i < a->nsuspects; i++) {
        assert_int_equal(a->suspects[i].object, b->suspects[i].object);
        assert_int_equal(a->suspects[i].accumulation, b->suspects[i].accumulation);
        assert_int_equal(a->suspects[i].retained, b->suspects[i].retained);
    }
}

/* Both builds give the same tree and findings. */
static void same_as_spilled(const hb_buf *b, const hp_heap *h)
{
    hp_file f;
    hp_heap s;
    open_heap_spilled(&s, &f, b);
    assert_int_equal(s.g.obj.n, h->g.obj.n);
    for (uint32_t i = 0; i < h->g.obj.n; i++) {
        assert_int_equal(hp_objects_id(&s.g.obj, i), hp_objects_id(&h->g.obj, i));
        assert_int_equal(hp_dom_idom(&s.d, i), hp_dom_idom(&h->d, i));
        assert_int_equal(hp_dom_retained(&s.d, i), hp_dom_retained(&h->d, i));
        assert_int_equal(hp_dom_reachable(&s.d, i), hp_dom_reachable(&h->d, i));
        assert_int_equal(s.g.classof[i], h->g.classof[i]);
    }
    same_findings(s.fx, h->fx);
    hp_heap_close(&s);
}

static void check_graph(const rgraph *r)
{
    hb_buf b;
    build_dump(&b, r);
    hp_file f;
    hp_heap h;
    open_heap(&h, &f, &b);
    const hp_graph g = h.g;
    const hp_domtree d = h.d;
    uint64_t dom[MAXN + 1];
    int reach[MAXN];
    naive(r, dom, reach);
    for (int v = 0; v < r->n; v++) {
        uint32_t obj = hp_objects_find(&g.obj, BASE + 16 * (uint64_t)v);
        assert_int_equal(hp_dom_reachable(&d, obj), reach[v]);
        uint64_t want = 0; /* nodes v dominates, reachable ones only */
        for (int w = 0; w < r->n; w++)
            if (reach[w] && (dom[w] >> v & 1)) want += hp_graph_shallow(&g, obj + (w - v));
        assert_int_equal(hp_dom_retained(&d, obj), want);
        /* The immediate dominator is the strict dominator that all others dominate. */
        uint32_t id = hp_dom_idom(&d, obj);
        int idom = id == HP_NO_OBJECT ? r->n : (int)(hp_objects_id(&g.obj, id) - BASE) / 16;
        assert_true(dom[v] >> idom & 1);
        assert_true(idom != v);
        for (int u = 0; u < r->n; u++)
            if (u != v && (dom[v] >> u & 1)) assert_true(dom[idom] >> u & 1);
    }
    same_as_spilled(&b, &h);
    hp_heap_close(&h);
    hb_free(&b);
}

static void random_graphs(void **state)
{
    (void)state;
    srand(12345);
    for (int round = 0; round < 400; round++) {
        rgraph r = {.n = 2 + rand() % (MAXN - 2)};
        int density = 1 + rand() % 6;
        for (int i = 0; i < r.n; i++) {
            r.rooted[i] = rand() % 10 == 0;
            for (int j = 0; j < r.n; j++)
                r.adj[i][j] = rand() % (r.n * 2) < density;
        }
        r.rooted[rand() % r.n] = 1;
        check_graph(&r);
    }
}

/* A chain far deeper than any call stack: the DFS and compression are iterative. */
static void deep_chain(void **state)
{
    (void)state;
    enum { N = 300000 };
    hb_buf b;
    hb_init(&b, "1.0.2", 4);
    size_t rec = hb_begin(&b, 0x0C);
    hb_u1(&b, 0xFF);
    hb_id(&b, 16);
    for (uint64_t i = 1; i <= N; i++) {
        uint64_t next = i < N ? 16 * (i + 1) : 16; /* the last closes a cycle */
        hb_obj_array(&b, 16 * i, 0x77, 1, &next);
    }
    hb_end(&b, rec);
    hp_file f;
    hp_heap h;
    open_heap(&h, &f, &b);
    const hp_graph g = h.g;
    const hp_domtree d = h.d;
    uint64_t one = hp_graph_shallow(&g, 0); /* every Object[1]: 16 + 4 -> 24 bytes */
    assert_int_equal(one, 24);
    assert_int_equal(hp_dom_retained(&d, 0), one * N);
    assert_int_equal(hp_dom_retained(&d, N - 1), one);
    assert_int_equal(hp_dom_idom(&d, N - 1), N - 2);
    same_as_spilled(&b, &h);
    hp_heap_close(&h);
    hb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_graphs),
        cmocka_unit_test(deep_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
