/* Ascii records of the agent core: header, threads, traces. */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/output/ascii/prelude.h"
#include "agent/output/ascii/text.h"
#include "agent/output/encoder.h"
#include "format/hprof_format.h"

#include <inttypes.h>
#include <string.h>

/* cpu=old imitates the old -prof output, as the JDK 8 agent did: no header,
 * prelude or THREAD START/END lines. */
static void header(void)
{
    if (hp.opt.cpu_old) return;
    char date[32];
    hp_ctime(date);
    hp_out_printf(HP_ASCII_HEADER "%s\n", date);
    hp_out_write(hp_ascii_prelude, strlen(hp_ascii_prelude));
    if (hp.attached) hp_out_write(hp_ascii_prelude_attached, strlen(hp_ascii_prelude_attached));
    hp_out_write("\n--------\n\n", 11);
}

static void thread_start(const struct hp_thread_view *t)
{
    if (hp.opt.cpu_old) return;
    hp_out_printf("THREAD START (obj=%" PRIx64 ", id = %u, name=\"%s\", group=\"%s\")\n", t->obj,
                  t->serial, t->name ? t->name : "", t->group ? t->group : "");
}

static void thread_end(uint32_t serial)
{
    if (!hp.opt.cpu_old) hp_out_printf("THREAD END (id = %u)\n", serial);
}

static void trace(const struct hp_trace *tr)
{
    struct hp_text t;
    hp_text_init(&t);
    hp_text_printf(&t, "TRACE %u:", tr->serial);
    if (tr->thread_serial) hp_text_printf(&t, " (thread=%u)", tr->thread_serial);
    hp_text_printf(&t, "\n");
    if (tr->n_frames == 0) hp_text_printf(&t, "\t<empty>\n");
    for (uint32_t i = 0; i < tr->n_frames; i++) {
        hp_text_printf(&t, "\t");
        hp_text_frame(&t, tr->frames[i]);
        hp_text_printf(&t, "\n");
    }
    hp_text_emit(&t);
}

/* The ascii format has no class records outside heap dumps. */
static void class_event(const struct hp_class *c)
{
    (void)c;
}

const struct hp_encoder hp_ascii_encoder = {
    .header = header,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .trace = trace,
    .class_load = class_event,
    .class_unload = class_event,
};
