/* Where the on-disk index lives, and reading and writing it. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heap/store.h"

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
        if (hp_store_attach(h, map, (size_t)st.st_size, &k, m) == 0) {
            h->store = map;
            h->store_len = (size_t)st.st_size;
            return 0;
        }
        munmap(map, (size_t)st.st_size);
    }
    return -1;
}

/* Writes the index under a temporary name in the target directory, then renames it. */
static int write_at(const char *path, const hp_heap *h, const hp_store_key *k)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!out) {
        if (fd >= 0) close(fd);
        if (fd >= 0) unlink(tmp);
        return -1;
    }
    int ok = hp_store_write(h, k, out) == 0;
    ok = fclose(out) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    return ok ? 0 : -1;
}

void hp_store_save(const hp_heap *h, const hp_file *f, const hp_model *m)
{
    hp_store_key k;
    if (hp_store_key_of(&k, f, h->dump, m) != 0) return;
    for (int where = 0; where < 2; where++) {
        char path[4096];
        if (index_path(f, &k, where, path, sizeof path) != 0) continue;
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
        if (write_at(path, h, &k) == 0) break;
    }
}
