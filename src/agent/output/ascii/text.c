#include "agent/output/ascii/text.h"

#include "agent/io/writer.h"
#include "agent/tables/class.h"
#include "agent/tables/frame.h"
#include "agent/tables/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hp_text_init(struct hp_text *t)
{
    t->p = t->small;
    t->len = 0;
    t->cap = sizeof t->small;
}

void hp_text_printf(struct hp_text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap + (size_t)n) * 2;
        char *grown = t->p == t->small ? malloc(cap) : realloc(t->p, cap);
        if (grown == NULL) return; /* drop the text rather than fail the program */
        if (t->p == t->small) memcpy(grown, t->small, t->len);
        t->p = grown;
        t->cap = cap;
    }
}

void hp_text_emit(struct hp_text *t)
{
    hp_out_write(t->p, t->len);
    if (t->p != t->small) free(t->p);
    hp_text_init(t);
}

static const char *class_name(uint32_t serial)
{
    const struct hp_class *c = hp_class_get(serial);
    return c && c->name ? c->name : "<Unknown Class>";
}

void hp_text_frame(struct hp_text *t, uint32_t frame_id)
{
    const struct hp_frame *f = hp_frame_get(frame_id);
    const struct hp_method *m = f ? f->method : NULL;
    const struct hp_class *c = m ? hp_class_get(m->class_serial) : NULL;
    const char *source = c && c->source ? c->source : "<Unknown Source>";
    hp_text_printf(t, "%s.%s(%s:", class_name(m ? m->class_serial : 0),
                   m && m->name ? m->name : "<Unknown Method>", source);
    int32_t line = f ? f->line : -1;
    if (line > 0)
        hp_text_printf(t, "%d)", line);
    else
        hp_text_printf(t, "%s)", line == -3 ? "Native method" : "Unknown line");
}

void hp_text_top_method(struct hp_text *t, uint32_t trace_serial)
{
    const struct hp_trace *tr = hp_trace_get(trace_serial);
    const struct hp_frame *f = tr && tr->n_frames ? hp_frame_get(tr->frames[0]) : NULL;
    if (f == NULL) {
        hp_text_printf(t, "<empty trace>");
        return;
    }
    hp_text_printf(t, "%s.%s", class_name(f->method->class_serial),
                   f->method->name ? f->method->name : "<Unknown Method>");
}
