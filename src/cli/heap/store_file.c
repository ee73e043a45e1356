/* Where the on-disk index lives, and reading and writing it. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/heap/findings.h"
#include "cli/heap/store.h"

/* 0: next to the dump; 1: in the user's cache directory (created if need be). */
static int index_path(const hp_file *f, const hp_store_key *k, int where, char *buf, size_t cap)
{
    if (where == 0) return snprintf(buf, cap, "%s.index", f->path) < (int)cap ? 0 : -1;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096], base[4096];
    if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/hprof", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/hprof", home);
    else
        return -1;
    snprintf(base, sizeof base, "%s", f->path);
    int n = snprintf(buf, cap, "%s/%s.%llx-%llx.index", dir, basename(base),
                     (unsigned long long)k->dev, (unsigned long long)k->ino);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

int hp_store_load(hp_heap *h, const hp_file *f, const hp_model *m)
{
    hp_store_key k;
    if (hp_store_key_of(&k, f, h->dump, m) != 0) return -1;
    for (int where = 0; where < 2; where++) {
        char path[4096];
        struct stat st;
        if (index_path(f, &k, where, path, sizeof path) != 0) continue;
        int fd = open(path, O_RDONLY);
        if (fd < 0) continue;
        void *map = MAP_FAILED;
        if (fstat(fd, &st) == 0 && st.st_size > 0)
            map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (map == MAP_FAILED) continue;
        if (hp_store_attach_image(h, map, (size_t)st.st_size, &k, m, HP_STORE_MAPPED) == 0) {
            h->store = map;
            h->store_len = (size_t)st.st_size;
            return 0;
        }
        munmap(map, (size_t)st.st_size);
    }
    return -1;
}

int hp_store_create(const hp_heap *h, const hp_file *f, const hp_model *m, hp_store_key *key,
                    char *tmp, size_t cap)
{
    if (hp_store_key_of(key, f, h->dump, m) != 0) return -1;
    for (int where = 0; where < 2; where++) {
        char path[4096];
        if (index_path(f, key, where, path, sizeof path) != 0) continue;
        if (where == 1) { /* the cache directory and its parent, as needed */
            char dir[4096];
            snprintf(dir, sizeof dir, "%s", path);
            *strrchr(dir, '/') = '\0';
            char *slash = strrchr(dir, '/');
            if (slash) {
                *slash = '\0';
                mkdir(dir, 0700);
                *slash = '/';
            }
            mkdir(dir, 0700);
        }
        if ((size_t)snprintf(tmp, cap, "%s.XXXXXX", path) >= cap) continue;
        int fd = mkstemp(tmp);
        if (fd >= 0) return fd;
    }
    return -1;
}

/* Maps what sp has written so far and attaches it to a copy of h; the map or NULL. */
static void *map_into(hp_heap *t, const hp_heap *h, const hp_spill *sp, const hp_store_key *key,
                      int how)
{
    void *map = mmap(NULL, (size_t)sp->at, PROT_READ, MAP_PRIVATE, sp->fd, 0);
    if (map == MAP_FAILED) return NULL;
    *t = *h;
    if (hp_store_attach_image(t, map, (size_t)sp->at, key, h->g.model, how) != 0) {
        munmap(map, (size_t)sp->at);
        return NULL;
    }
    t->store = map;
    t->store_len = (size_t)sp->at;
    return map;
}

/* The findings, computed from the graph and dominators as mapped from the file. */
static int add_findings(hp_heap *h, hp_spill *sp, const hp_store_key *key, hp_error *err)
{
    hp_heap part;
    hp_findings fx;
    if (hp_store_finish(h, sp, key) != 0 || !map_into(&part, h, sp, key, HP_STORE_PARTIAL))
        return -1;
    int rc = hp_findings_build(&fx, &part, err);
    if (rc == 0) {
        rc = hp_store_finish_findings(&part, &fx, sp, key);
        hp_findings_free(&fx);
    }
    munmap(part.store, part.store_len);
    hp_graph_free(&part.g); /* the classes and layouts the attach built */
    return rc;
}

int hp_store_commit(hp_heap *h, hp_spill *sp, const hp_store_key *key, const char *tmp,
                    hp_error *err)
{
    char path[4096];
    size_t len = strlen(tmp);
    hp_heap t;
    snprintf(path, sizeof path, "%.*s", (int)(len - 7), tmp); /* without ".XXXXXX" */
    if (len > 7 && len < sizeof path && add_findings(h, sp, key, err) == 0 &&
        map_into(&t, h, sp, key, HP_STORE_TRUSTED)) {
        if (rename(tmp, path) == 0) {
            hp_graph_free(&h->g); /* what is left of the build: classes and layouts */
            hp_domtree_free(&h->d);
            *h = t;
            return 0;
        }
        hp_findings_free(t.fx);
        free(t.fx);
        hp_graph_free(&t.g);
        munmap(t.store, t.store_len);
    }
    unlink(tmp);
    return -1;
}
