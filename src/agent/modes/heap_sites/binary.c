/* ALLOC SITES (0x06) and HEAP SUMMARY (0x07). Deviations from the JDK 8 agent, on purpose: the
 * cutoff is a real IEEE float (the format gives it 4 bytes as a "floating
 * point"; JDK 8 wrote half of a double), and the 64-bit counts saturate at 0xFFFFFFFF in u4
 * fields instead of wrapping. */
#include "agent/modes/heap_sites/sites_encoder.h"
#include "agent/output/binary/record.h"
#include "agent/tables/class.h"
#include "agent/tables/names.h"

#include <string.h>

static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* 0 for a plain object, else the basic type of the array's elements. */
static uint8_t array_type(uint32_t class_serial)
{
    const struct hp_class *c = hp_class_get(class_serial);
    if (c == NULL || c->sig == NULL || c->sig[0] != '[') return 0;
    return hp_type_of_descriptor(c->sig[1]);
}

static void sites(const struct hp_sites_report *r)
{
    struct hp_rec rec;
    uint32_t cutoff;
    memcpy(&cutoff, &r->cutoff, sizeof cutoff);
    hp_rec_begin(&rec, HP_ALLOC_SITES);
    hp_rec_u2(&rec, r->flags);
    hp_rec_u4(&rec, cutoff);
    hp_rec_u4(&rec, sat32(r->live_bytes));
    hp_rec_u4(&rec, sat32(r->live_objs));
    hp_rec_u8(&rec, r->alloc_bytes);
    hp_rec_u8(&rec, r->alloc_objs);
    hp_rec_u4(&rec, sat32(r->n_rows));
    for (size_t i = 0; i < r->n_rows && i < UINT32_MAX; i++) {
        const struct hp_sites_row *s = &r->rows[i];
        hp_rec_u1(&rec, array_type(s->class_serial));
        hp_rec_u4(&rec, s->class_serial);
        hp_rec_u4(&rec, s->trace_serial);
        hp_rec_u4(&rec, sat32(s->live_bytes));
        hp_rec_u4(&rec, sat32(s->live_objs));
        hp_rec_u4(&rec, sat32(s->alloc_bytes));
        hp_rec_u4(&rec, sat32(s->alloc_objs));
    }
    hp_rec_end(&rec);
}

/* HEAP SUMMARY: u4 live bytes, u4 live instances, u8 allocated bytes, u8
 * allocated instances, the HPROF binary format's layout. */
static void heap_summary(const struct hp_sites_report *r)
{
    struct hp_rec rec;
    hp_rec_begin(&rec, HP_HEAP_SUMMARY);
    hp_rec_u4(&rec, sat32(r->live_bytes));
    hp_rec_u4(&rec, sat32(r->live_objs));
    hp_rec_u8(&rec, r->alloc_bytes);
    hp_rec_u8(&rec, r->alloc_objs);
    hp_rec_end(&rec);
}

const struct hp_sites_encoder hp_binary_sites_encoder = {sites, heap_summary};
