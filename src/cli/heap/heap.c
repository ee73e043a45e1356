#include "heap/heap.h"

#include <string.h>
#include <sys/mman.h>

#include "heap/store.h"

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
    /* A saved index of the same dump skips reading the heap records. */
    if (level == HP_HEAP_DOMINATORS && !o->no_index && hp_store_load(h, f, o->model) == 0)
        return HP_EXIT_OK;
    h->level = level >= HP_HEAP_GRAPH ? HP_HEAP_GRAPH : HP_HEAP_INDEX; /* freed on failure too */
    if (level >= HP_HEAP_GRAPH && hp_graph_build(&h->g, &h->ix, h->dump, o->model, &e) != 0) {
        hp_report(err, f, &e);
        hp_heap_close(h);
        return HP_EXIT_MALFORMED;
    }
    if (level >= HP_HEAP_DOMINATORS && hp_dominators(&h->d, &h->g, &e) != 0) {
        hp_report(err, f, &e);
        hp_heap_close(h);
        return HP_EXIT_MALFORMED;
    }
    h->level = level;
    if (level == HP_HEAP_DOMINATORS && !o->no_index) hp_store_save(h, f, o->model);
    return HP_EXIT_OK;
}

void hp_heap_close(hp_heap *h)
{
    if (h->level >= HP_HEAP_DOMINATORS) hp_domtree_free(&h->d);
    if (h->level >= HP_HEAP_GRAPH) hp_graph_free(&h->g);
    if (h->store) munmap(h->store, h->store_len);
    hp_index_free(&h->ix);
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
