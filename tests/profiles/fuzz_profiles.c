/* libFuzzer entry point: the profile loader and every renderer over one input. */
#include <stdint.h>
#include <stdio.h>

#include "profile/load.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
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
