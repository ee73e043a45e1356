#include "render_all.h"

#include "cli/profile/load.h"
#include "cli/render/render.h"

int render_all(FILE *sink, const uint8_t *data, size_t size)
{
    int failed = 0;
    for (int want = HP_WANT_FIRST; want < HP_PK_NKINDS; want++) {
        hp_profile_set set;
        hp_error e;
        if (hp_profile_load_mem(&set, "input", data, size, want, &e) != 0) continue;
        for (int k = 0; k < HP_PK_NKINDS; k++) {
            const hp_profile *p = &set.kinds[k];
            for (int v = 0; v < p->nvalues; v++) {
                hp_render_opts o = {.value = v,
                                    .threads = v & 1,
                                    .minwidth = v ? 0 : 0.1,
                                    .interval_ms = 10,
                                    .title = "t",
                                    .source = "s"};
                failed += hp_render_collapsed(sink, p, &o, &e) != 0;
                failed += hp_render_pprof(sink, p, &o, &e) != 0;
                failed += hp_render_flame(sink, p, &o, &e) != 0;
                failed += hp_render_flame_diff(sink, p, p, &o, &e) != 0;
            }
        }
        hp_profile_set_free(&set);
    }
    return failed;
}
