/* `hprof sites`, `samples`, `threads` and `text`: the ascii renderings. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli/ascii/sections.h"
#include "cli/commands/cli.h"
#include "cli/readers/threadnames.h"

static int open_index(hp_index *ix, const hp_file *f, FILE *err)
{
    hp_error e;
    if (hp_index_build(ix, f, 0, &e) == 0) return 0;
    hp_report(err, f, &e);
    hp_index_free(ix);
    return -1;
}

static uint32_t site_trace(const hp_rec *o, uint32_t i)
{
    hp_site s;
    hp_site_at(o, i, &s);
    return s.trace;
}

static uint32_t sample_trace(const hp_rec *o, uint32_t i)
{
    uint32_t count, trace;
    hp_sample_at(o, i, &count, &trace);
    return trace;
}

/* The last record of a kind, after each TRACE it lists (once, in order of mention). */
static int last_with_traces(const hp_file *f, FILE *out, FILE *err, int sites)
{
    hp_index ix;
    hp_record r;
    hp_rec o;
    if (open_index(&ix, f, err)) return HP_EXIT_MALFORMED;
    uint64_t at = sites ? ix.last_sites : ix.last_samples;
    if (at == UINT64_MAX) {
        fprintf(err, "hprof: error: %s: no %s record\n", f->path,
                sites ? "ALLOC SITES" : "CPU SAMPLES");
        hp_index_free(&ix);
        return HP_EXIT_NODATA;
    }
    hp_index_record(&ix, at, &r, &o);
    uint32_t n = sites ? o.sites.nsites : o.samples.ntraces;
    hp_idmap seen = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = sites ? site_trace(&o, i) : sample_trace(&o, i);
        if (hp_idmap_put(&seen, serial, 1) != 0) hp_print_trace(out, &ix, serial);
    }
    if (sites)
        hp_print_sites(out, &ix, &r, &o);
    else
        hp_print_samples(out, &ix, &r, &o);
    hp_idmap_free(&seen);
    hp_index_free(&ix);
    return HP_EXIT_OK;
}

int hp_cmd_sites(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    (void)opts;
    return last_with_traces(f, out, err, 1);
}

int hp_cmd_samples(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    (void)opts;
    return last_with_traces(f, out, err, 0);
}

typedef struct {
    uint64_t obj;
    uint32_t serial, trace;
} thread_root;

typedef struct {
    thread_root *v;
    size_t n, cap;
    hp_idmap names; /* thread object -> name, see hp_thread_names() */
} roots_ctx;

/* Heap dumps (the JVM's among them) list threads only as ROOT THREAD OBJECTs. */
static int collect_root(void *vc, const hp_sub *s, hp_error *err)
{
    roots_ctx *c = vc;
    if (s->tag != HP_ROOT_THREAD_OBJECT) return 0;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        thread_root *v = realloc(c->v, cap * sizeof *v);
        if (!v) return hp_fail(err, s->offset, "out of memory");
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (thread_root){s->id, s->thread, s->depth};
    return hp_idmap_put(&c->names, s->id, 0) < 0 ? hp_fail(err, s->offset, "out of memory") : 0;
}

static int dump_threads(FILE *out, const hp_index *ix, size_t d, hp_error *err)
{
    roots_ctx c = {0};
    int rc = hp_dump_walk(ix, d, collect_root, &c, err);
    if (rc == 0) rc = hp_thread_names(ix, d, &c.names, err);
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        const uint64_t *name = hp_idmap_get(&c.names, c.v[i].obj);
        fprintf(out, "THREAD OBJ %" PRIx64 " (id = %u, trace = %u, name=\"%s\", heap dump %zu)\n",
                c.v[i].obj, c.v[i].serial, c.v[i].trace,
                name && *name ? (const char *)(uintptr_t)*name : "", d + 1);
        hp_print_trace(out, ix, c.v[i].trace);
    }
    free(c.v);
    hp_thread_names_free(&c.names);
    return rc;
}

int hp_cmd_threads(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    hp_index ix;
    hp_error e;
    (void)opts;
    if (open_index(&ix, f, err)) return HP_EXIT_MALFORMED;
    uint64_t pos = f->first_record;
    hp_record r;
    hp_rec o;
    while (hp_next_record(f, &pos, &r, &e) == 1)
        if ((r.tag == HP_START_THREAD || r.tag == HP_END_THREAD) &&
            hp_parse_record(f, &r, &o, &e) == 0)
            hp_print_thread(out, &ix, &r, &o);
    int rc = HP_EXIT_OK;
    for (size_t d = 0; d < ix.ndumps && rc == HP_EXIT_OK; d++) {
        if (dump_threads(out, &ix, d, &e) != 0) {
            hp_report(err, f, &e);
            rc = HP_EXIT_MALFORMED;
        }
    }
    hp_index_free(&ix);
    return rc;
}
