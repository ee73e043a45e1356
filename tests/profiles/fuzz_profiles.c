/* libFuzzer entry point: the profile loader and every renderer over one input. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/profile/load.h"
#include "cli/render/merge.h"
#include "cli/render/render.h"
#include "render_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input merged with itself, written in its format and read back. */
static void merge_round_trip(const uint8_t *data, size_t size)
{
    hp_profile_set set[2], merged, again;
    hp_error e;
    const char *names[2] = {"a", "b"};
    if (hp_profile_load_mem(&set[0], "fuzz", data, size, HP_WANT_ALL, &e) != 0) return;
    set[1] = set[0];
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (out && hp_merge(&merged, set, 2, names, &e) == 0) {
        if (merged.format == HP_PFMT_BINARY)
            hp_write_binary(out, &merged, &e);
        else
            hp_write_ascii(out, &merged, &e);
    }
    if (out) fclose(out);
    if (buf && hp_profile_load_mem(&again, "merged", (uint8_t *)buf, len, HP_WANT_ALL, &e) == 0)
        hp_profile_set_free(&again);
    free(buf);
    hp_profile_set_free(&merged);
    hp_profile_set_free(&set[0]);
}

/* Gzipped inputs through the loader's file path, which inflates them. */
static void gzip_load(const uint8_t *data, size_t size)
{
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return;
    int fd = memfd_create("fuzz", 0);
    char path[64];
    hp_profile_set set;
    hp_error e;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (fd >= 0 && write(fd, data, size) == (ssize_t)size &&
        hp_profile_load(&set, path, HP_WANT_ALL, &e) == 0)
        hp_profile_set_free(&set);
    if (fd >= 0) close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gzip_load(data, size);
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    merge_round_trip(data, size);
    render_all(sink, data, size);
    return 0;
}
