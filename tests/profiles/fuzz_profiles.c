/* libFuzzer entry point: the profile loader and every renderer over one input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/load.h"
#include "render/merge.h"
#include "render/render.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    merge_round_trip(data, size);
    render_all(sink, data, size);
    return 0;
}
