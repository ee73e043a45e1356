/* Renderers for the ascii (java.hprof.txt) sections, in the JDK 8 agent's layouts. */
#ifndef HPROF_CLI_ASCII_H
#define HPROF_CLI_ASCII_H

#include <stdio.h>

#include "cli/analyses/sizes.h"
#include "cli/readers/index.h"

/* ctime()-style local time of a record (header time stamp + record time), with '\n'. */
void hp_record_ctime(const hp_file *f, uint32_t time_us, char buf[64]);

/* "TRACE n:" block. Returns 0 if the file has no TRACE with that serial. */
int hp_print_trace(FILE *out, const hp_index *ix, uint32_t serial);
/* "class.method" of a trace's top frame, or "<empty trace>". */
void hp_trace_top_method(const hp_index *ix, uint32_t serial, char *buf, size_t cap);

/* SITES and CPU SAMPLES sections for one record, without TRACEs. */
void hp_print_sites(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o);
void hp_print_samples(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o);
/* THREAD START / THREAD END lines. */
void hp_print_thread(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o);

/* HEAP DUMP BEGIN .. HEAP DUMP END for dump d. Returns 0 or -1. */
int hp_print_heap(FILE *out, const hp_index *ix, size_t d, const hp_model *m, hp_error *err);

#endif
