#include "agent/core/mode.h"

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

void hp_modes_select(const struct hp_options *o)
{
    size_t n = 0;
    for (size_t m = 0; all_modes[m]; m++)
        if (all_modes[m]->selected(o)) active[n++] = all_modes[m];
    active[n] = NULL;
}
