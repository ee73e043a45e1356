/* libFuzzer entry point: the profile loader and every renderer over one input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/load.h"
#include "render/merge.h"
#include "render/render.h"

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
    for (int want = -1; want < HP_PK_NKINDS; want++) {
        hp_profile_set set;
        hp_error e;
        if (hp_profile_load_mem(&set, "fuzz", data, size, want, &e) != 0) continue;
        for (int k = 0; k < HP_PK_NKINDS; k++) {
            const hp_profile *p = &set.kinds[k];
            for (int v = 0; v < p->nvalues; v++) {
                hp_render_opts o = {.value = v,
                                    .threads = v & 1,
                                    .minwidth = v ? 0 : 0.1,
                                    .interval_ms = 10,
                                    .title = "t",
                                    .source = "s"};
                hp_render_collapsed(sink, p, &o, &e);
                hp_render_pprof(sink, p, &o, &e);
                hp_render_flame(sink, p, &o, &e);
                hp_render_flame_diff(sink, p, p, &o, &e);
            }
        }
        hp_profile_set_free(&set);
    }
    return 0;
}
