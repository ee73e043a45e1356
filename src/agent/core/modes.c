#include "agent/core/error.h"
#include "agent/core/mode.h"

#include <string.h>

extern const struct hp_mode hp_mode_monitor;
extern const struct hp_mode hp_mode_heap_dump;
extern const struct hp_mode hp_mode_heap_sites;
extern const struct hp_mode hp_mode_cpu_samples;
extern const struct hp_mode hp_mode_cpu_times;

/* Every mode this build has, in dump order. */
// clang-format off
static const struct hp_mode *const all_modes[] = {
    &hp_mode_monitor,
    &hp_mode_heap_dump,
    &hp_mode_heap_sites,
    &hp_mode_cpu_samples,
    &hp_mode_cpu_times,
    NULL,
};
// clang-format on

static const struct hp_mode *active[sizeof all_modes / sizeof all_modes[0]];

const struct hp_mode *const *hp_active_modes(void)
{
    return active;
}

bool hp_modes_select(const struct hp_options *o)
{
    const struct {
        const char *option;
        bool wanted;
    } features[] = {
        {"monitor=y", o->monitor},       {"heap=dump", o->heap_dump}, {"heap=sites", o->heap_sites},
        {"cpu=samples", o->cpu_samples}, {"cpu=times", o->cpu_times},
    };
    size_t n = 0;
    for (size_t f = 0; f < sizeof features / sizeof features[0]; f++) {
        if (!features[f].wanted) continue;
        const struct hp_mode *found = NULL;
        for (size_t m = 0; all_modes[m]; m++)
            if (strcmp(all_modes[m]->option, features[f].option) == 0) found = all_modes[m];
        if (found == NULL) {
            hp_error("%s is not available in this build of the agent", features[f].option);
            return false;
        }
        active[n++] = found;
    }
    active[n] = NULL;
    return true;
}
