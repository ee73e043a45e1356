/* Binary records of the agent core: header, CONTROL SETTINGS, threads,
 * classes, frames and traces. */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/output/binary/record.h"
#include "agent/output/encoder.h"
#include "agent/tables/frame.h"

/* 1.0.2: heap dumps are always written as segments, whatever the heap size. */
static const char magic[] = HP_VERSION_1_0_2;

static void header(void)
{
    hp_bin_strings_forget();
    struct hp_rec r;
    hp_rec_init(&r);
    hp_rec_bytes(&r, magic, sizeof magic); /* with its NUL */
    hp_rec_u4(&r, HP_ID_SIZE);
    hp_rec_u8(&r, hp.start_ms);
    hp_out_write(r.p, r.len);
    hp_rec_free(&r);

    hp_rec_begin(&r, HP_CONTROL_SETTINGS);
    uint32_t flags = (hp.opt.heap_dump || hp.opt.heap_sites ? HP_CONTROL_ALLOC_TRACES : 0) |
                     (hp.opt.cpu_samples ? HP_CONTROL_CPU_SAMPLING : 0);
    hp_rec_u4(&r, flags);
    hp_rec_u2(&r, (uint16_t)(hp.opt.depth > 0xffff ? 0xffff : hp.opt.depth));
    hp_rec_end(&r);
}

static void thread_start(const struct hp_thread_view *t)
{
    uint64_t name = hp_bin_string(t->name), group = hp_bin_string(t->group),
             parent = hp_bin_string(t->parent_group);
    struct hp_rec r;
    hp_rec_begin(&r, HP_START_THREAD);
    hp_rec_u4(&r, t->serial);
    hp_rec_id(&r, t->obj);
    hp_rec_u4(&r, t->trace);
    hp_rec_id(&r, name);
    hp_rec_id(&r, group);
    hp_rec_id(&r, parent);
    hp_rec_end(&r);
}

static void thread_end(uint32_t serial)
{
    struct hp_rec r;
    hp_rec_begin(&r, HP_END_THREAD);
    hp_rec_u4(&r, serial);
    hp_rec_end(&r);
}

static void frame(uint32_t id)
{
    const struct hp_frame *f = hp_frame_get(id);
    if (f == NULL || !hp_frame_claim(id)) return;
    const struct hp_class *c = hp_class_get(f->method->class_serial);
    uint64_t name = hp_bin_string(f->method->name ? f->method->name : "<Unknown Method>");
    uint64_t sig = hp_bin_string(f->method->sig ? f->method->sig : "");
    uint64_t source = hp_bin_string(c ? c->source : NULL);
    struct hp_rec r;
    hp_rec_begin(&r, HP_FRAME);
    hp_rec_id(&r, id);
    hp_rec_id(&r, name);
    hp_rec_id(&r, sig);
    hp_rec_id(&r, source);
    hp_rec_u4(&r, f->method->class_serial);
    hp_rec_u4(&r, (uint32_t)f->line);
    hp_rec_end(&r);
}

static void trace(const struct hp_trace *t)
{
    for (uint32_t i = 0; i < t->n_frames; i++)
        frame(t->frames[i]);
    struct hp_rec r;
    hp_rec_begin(&r, HP_TRACE);
    hp_rec_u4(&r, t->serial);
    hp_rec_u4(&r, t->thread_serial);
    hp_rec_u4(&r, t->n_frames);
    for (uint32_t i = 0; i < t->n_frames; i++)
        hp_rec_id(&r, t->frames[i]);
    hp_rec_end(&r);
}

static void class_load(const struct hp_class *c)
{
    uint64_t name = hp_bin_string(c->name);
    struct hp_rec r;
    hp_rec_begin(&r, HP_LOAD_CLASS);
    hp_rec_u4(&r, c->serial);
    hp_rec_id(&r, c->obj);
    hp_rec_u4(&r, HP_TRACE_EMPTY);
    hp_rec_id(&r, name);
    hp_rec_end(&r);
}

static void class_unload(const struct hp_class *c)
{
    struct hp_rec r;
    hp_rec_begin(&r, HP_UNLOAD_CLASS);
    hp_rec_u4(&r, c->serial);
    hp_rec_end(&r);
}

const struct hp_encoder hp_binary_encoder = {
    .header = header,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .trace = trace,
    .class_load = class_load,
    .class_unload = class_unload,
};
