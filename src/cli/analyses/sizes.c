#include "cli/analyses/sizes.h"

#include <string.h>

static const hp_model models[] = {
    {"coops", 12, 16, 4, 8},
    {"wide", 16, 20, 8, 8},
    {"compact", 8, 12, 4, 8},
    {"raw", 0, 0, 0, 1},
};

const hp_model *hp_model_default(void)
{
    return &models[0];
}

const hp_model *hp_model_find(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0) return &models[i];
    return NULL;
}

static uint64_t align_up(uint64_t v, unsigned a)
{
    return (v + a - 1) / a * a;
}

uint64_t hp_instance_bytes(const hp_model *m, uint32_t id_size, uint64_t refs, uint64_t prim)
{
    unsigned ref = m->ref ? m->ref : id_size;
    return align_up(m->header + refs * ref + prim, m->align);
}

uint64_t hp_array_bytes(const hp_model *m, uint32_t id_size, unsigned elem, uint64_t count)
{
    if (elem == 0) elem = m->ref ? m->ref : id_size;
    /* 8-byte elements start 8-aligned, as HotSpot lays out long[] and double[]. */
    uint64_t base = elem >= 8 ? align_up(m->array_header, 8) : m->array_header;
    return align_up(base + count * elem, m->align);
}
