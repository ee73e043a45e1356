/* Runs the rewriter over a tree of class files (e.g. `jimage extract` output),
 * or, with DIR "-", over the records "Walker dump" writes to a pipe.
 *   bci_jdk check DIR [OUTDIR]  parse -> write without injection must give the
 *                               input back; rewriting with all hooks must
 *                               succeed (or find no method with code);
 *                               OUTDIR receives the rewritten classes
 *   bci_jdk bench DIR [REPS]    rewrite throughput (classes/s, MB/s)
 * Prints counts and the reasons of classes left unchanged; exits 1 on any
 * round-trip mismatch or class the rewriter could not handle. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "bci/bci.h"
#include "tracker_hooks.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct {
    char *path;
    uint8_t *data;
    size_t len;
} cls_t;

static cls_t *classes;
static size_t nclasses, capclasses;

static void add_class(char *path, uint8_t *data, size_t len)
{
    if (nclasses == capclasses) {
        capclasses = capclasses ? capclasses * 2 : 1024;
        classes = realloc(classes, capclasses * sizeof *classes);
    }
    classes[nclasses++] = (cls_t){path, data, len};
}

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    size_t n = strlen(path);
    if (flag != FTW_F || n < 6 || strcmp(path + n - 6, ".class")) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t *data = malloc(st->st_size ? (size_t)st->st_size : 1);
    add_class(strdup(path), data, fread(data, 1, (size_t)st->st_size, f));
    fclose(f);
    return 0;
}

/* Records of (u2 name length, name, u4 length, bytes), big-endian. */
static int read_stream(FILE *f)
{
    uint8_t h[4];
    while (fread(h, 1, 2, f) == 2) {
        size_t n = (size_t)h[0] << 8 | h[1];
        char *path = malloc(n + 1);
        if (fread(path, 1, n, f) != n || fread(h, 1, 4, f) != 4) {
            free(path);
            return -1;
        }
        path[n] = 0;
        size_t len = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
        uint8_t *data = malloc(len ? len : 1);
        if (fread(data, 1, len, f) != len) {
            free(path);
            free(data);
            return -1;
        }
        add_class(path, data, len);
    }
    return 0;
}

static double now(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void write_out(const char *outdir, const char *root, const cls_t *c, const uint8_t *d,
                      size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, c->path + strlen(root));
    for (char *s = path + strlen(outdir) + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(path, 0755);
            *s = '/';
        }
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(d, 1, len, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s check|bench DIR [OUTDIR|REPS]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1], *root = argv[2];
    int err = strcmp(root, "-") ? nftw(root, collect, 32, FTW_PHYS) : read_stream(stdin);
    if (err != 0 || nclasses == 0) {
        fprintf(stderr, "no class files under %s\n", root);
        return 2;
    }
    size_t bytes = 0, same = 0, mismatch = 0, changed = 0, nocode = 0, bad = 0, methods = 0;
    size_t sites = 0, ctor_fallback = 0;
    for (size_t i = 0; i < nclasses; i++)
        bytes += classes[i].len;
    struct tracker_numbers nums = {0};
    struct bci_hooks h = tracker_hooks(&nums);
    int reps = strcmp(mode, "bench") == 0 && argc > 3 ? atoi(argv[3]) : 1;
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (int rep = 0; rep < reps; rep++)
        for (size_t i = 0; i < nclasses; i++) {
            cls_t *c = &classes[i];
            struct bci_result r;
            int ok;
            if (rep == 0 && !strcmp(mode, "check")) {
                ok = bci_roundtrip(c->data, c->len, &r);
                if (ok && r.len == c->len && !memcmp(r.data, c->data, c->len))
                    same++;
                else {
                    mismatch++;
                    printf("MISMATCH %s %s\n", c->path, ok ? "(differs)" : r.reason);
                }
                bci_free(&r);
            }
            nums = (struct tracker_numbers){.cls = (int)i}; /* numbers are per class */
            ok = bci_rewrite(c->data, c->len, &h, &r);
            if (ok) {
                changed++;
                methods += r.methods;
                sites += r.sites;
                ctor_fallback += r.ctor_no_catch_all;
                if (argc > 3 && !strcmp(mode, "check")) write_out(argv[3], root, c, r.data, r.len);
            } else {
                if (rep == 0 && !strcmp(r.reason, "nothing to inject"))
                    nocode++;
                else if (rep == 0) {
                    bad++;
                    printf("UNCHANGED %s: %s\n", c->path, r.reason);
                }
            }
            bci_free(&r);
        }
    double dt = now(CLOCK_MONOTONIC) - t0, dc = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (!strcmp(mode, "check"))
        printf("roundtrip: %zu classes, %zu identical, %zu mismatches\n", nclasses, same, mismatch);
    printf("rewrite: %zu classes (%.1f MB), %zu rewritten, %zu without code, %zu not handled, "
           "%zu methods, %zu allocation sites, %zu constructors without catch-all\n",
           nclasses, bytes / 1e6, changed / reps, nocode, bad, methods / reps, sites / reps,
           ctor_fallback / reps);
    /* CPU time is the figure to quote on a shared machine; wall time is shown too. */
    if (!strcmp(mode, "bench"))
        printf("throughput: %.0f classes/s, %.1f MB/s per CPU second (%d passes, %.2f s CPU, "
               "%.2f s wall)\n",
               nclasses * reps / dc, bytes * (double)reps / 1e6 / dc, reps, dc, dt);
    for (size_t i = 0; i < nclasses; i++) {
        free(classes[i].path);
        free(classes[i].data);
    }
    free(classes);
    return bad || mismatch ? 1 : 0;
}
