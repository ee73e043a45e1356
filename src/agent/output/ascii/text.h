/* Helpers shared by the ascii writers: a growable text buffer that is
 * written as one record, and the frame line format. */
#ifndef HPROF_ASCII_TEXT_H
#define HPROF_ASCII_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct hp_text {
    char *p;
    size_t len, cap;
    char small[1024];
};

void hp_text_init(struct hp_text *t);
void hp_text_printf(struct hp_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes the buffer as one record and frees it. */
void hp_text_emit(struct hp_text *t);

/* Appends "<class>.<method>(<source>:<line>)" for a frame ID. */
void hp_text_frame(struct hp_text *t, uint32_t frame_id);
/* "<class>.<method>" of a trace's top frame, or "<empty trace>". */
void hp_text_top_method(struct hp_text *t, uint32_t trace_serial);

#endif
