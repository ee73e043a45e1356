#include "cli/heap/heap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/heap/findings.h"
#include "cli/heap/store.h"

/* Graph and dominators, spilled to fd as they are built (-1: in memory). */
int hp_heap_build(hp_heap *h, const hp_model *m, hp_spill *sp, hp_error *e)
{
    h->level = HP_HEAP_GRAPH; /* freed on failure too */
    if (hp_graph_build(&h->g, &h->ix, h->dump, m, sp, e) != 0) return -1;
    h->level = HP_HEAP_DOMINATORS;
    return hp_dominators(&h->d, &h->g, sp, e);
}

static void drop_build(hp_heap *h)
{
    if (h->fx) hp_findings_free(h->fx);
    free(h->fx);
    h->fx = NULL;
    if (h->level >= HP_HEAP_DOMINATORS) hp_domtree_free(&h->d);
    if (h->level >= HP_HEAP_GRAPH) hp_graph_free(&h->g);
    h->level = HP_HEAP_INDEX;
}

/* Graph, dominators and findings, all in memory. */
static int build_in_memory(hp_heap *h, const hp_model *m, hp_error *e)
{
    hp_spill sp;
    hp_spill_init(&sp, -1);
    if (hp_heap_build(h, m, &sp, e) != 0) return -1;
    h->fx = malloc(sizeof *h->fx);
    if (!h->fx) return hp_fail(e, 0, "out of memory");
    return hp_findings_build(h->fx, h, e);
}

/* Builds into a new index file when one can be written (so the process holds
 * only one step's arrays), else in memory. */
static int build(hp_heap *h, const hp_file *f, const hp_opts *o, hp_error *e)
{
    hp_store_key key;
    hp_spill sp;
    char tmp[4200];
    int fd = o->no_index ? -1 : hp_store_create(h, f, o->model, &key, tmp, sizeof tmp);
    if (fd < 0) return build_in_memory(h, o->model, e);
    hp_spill_init(&sp, fd);
    int rc = hp_heap_build(h, o->model, &sp, e);
    if (rc == 0)
        rc = hp_store_commit(h, &sp, &key, tmp, e);
    else
        unlink(tmp);
    close(fd);
    if (rc != 0 && sp.failed) { /* the index could not be written: again, in memory */
        drop_build(h);
        rc = build_in_memory(h, o->model, e);
    }
    return rc;
}

int hp_heap_open(hp_heap *h, const hp_file *f, const hp_opts *o, int level, FILE *err)
{
    hp_error e = {0};
    memset(h, 0, sizeof *h);
    if (hp_index_build(&h->ix, f, 0, &e) != 0) {
        hp_report(err, f, &e);
        hp_index_free(&h->ix);
        return HP_EXIT_MALFORMED;
    }
    h->dump = o->dump ? (size_t)o->dump - 1 : h->ix.ndumps - 1;
    if (h->ix.ndumps == 0 || h->dump >= h->ix.ndumps) {
        fprintf(err, "hprof: error: %s: no heap dump %ld (the file has %zu)\n", f->path,
                o->dump ? o->dump : 1, h->ix.ndumps);
        hp_index_free(&h->ix);
        return HP_EXIT_NODATA;
    }
    if (level < HP_HEAP_DOMINATORS) return HP_EXIT_OK;
    /* A saved index of the same dump skips reading the heap records. */
    if (!o->no_index && hp_store_load(h, f, o->model) == 0) return HP_EXIT_OK;
    if (build(h, f, o, &e) != 0) {
        hp_report(err, f, &e);
        hp_heap_close(h);
        return HP_EXIT_MALFORMED;
    }
    return HP_EXIT_OK;
}

void hp_heap_close(hp_heap *h)
{
    drop_build(h);
    if (h->store) munmap(h->store, h->store_len);
    hp_index_free(&h->ix);
}

void hp_heap_release(const hp_heap *h, const void *p, size_t bytes)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = (uintptr_t)p,
              to = (uintptr_t)p + bytes, start = (uintptr_t)h->store;
    if (!h->store || from < start || to > start + h->store_len) return;
    from = (from + page - 1) / page * page; /* whole pages inside the range only */
    to = to / page * page;
    if (from < to) madvise((void *)from, to - from, MADV_DONTNEED);
}

void hp_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}
