/* Output encoders: one interface, one implementation per format (ascii in
 * output/ascii/, binary in output/binary/). The format is chosen once at
 * start-up; no record writer branches on it. This is what every mode shares
 * (header, threads, traces, classes); each mode has its own small encoder
 * interface of the same shape in its folder (e.g. sites_encoder.h with
 * ascii.c and binary.c), built on the primitives here and in ascii/text.h
 * and binary/record.h. The CPU report (cpu_report_encoder.h) is here
 * because two modes write it. */
#ifndef HPROF_ENCODER_H
#define HPROF_ENCODER_H

#include "agent/core/options.h"
#include "agent/tables/class.h"
#include "agent/tables/trace.h"

struct hp_thread_view {
    uint32_t serial;
    hp_objid_t obj;
    uint32_t trace;
    const char *name, *group, *parent_group; /* NULL when unknown */
};

struct hp_encoder {
    /* File header: ascii header line, prelude and separator; binary header
     * and CONTROL SETTINGS. */
    void (*header)(void);
    void (*thread_start)(const struct hp_thread_view *t);
    void (*thread_end)(uint32_t serial);
    void (*trace)(const struct hp_trace *t);
    void (*class_load)(const struct hp_class *c);
    void (*class_unload)(const struct hp_class *c);
};

extern const struct hp_encoder hp_ascii_encoder;
extern const struct hp_encoder hp_binary_encoder;

/* The length of the longest prefix of a file of `size` bytes that ends at a
 * record boundary (ascii: a line end; binary: a whole record after the
 * header), read through fd; 0 when none. The writer cuts a file back to it
 * when a write fails part way (a full disk). */
uint64_t hp_ascii_whole_prefix(int fd, uint64_t size);
uint64_t hp_binary_whole_prefix(int fd, uint64_t size);

void hp_encoder_select(enum hp_format format);
const struct hp_encoder *hp_encoder(void);
/* True when binary output was selected; for modes choosing their encoder. */
bool hp_output_binary(void);

#endif
