/* Subcommands of the hprof front end and what they share. */
#ifndef HPROF_CLI_CLI_H
#define HPROF_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cli/analyses/sizes.h"
#include "cli/readers/reader.h"
#include "format/exit_codes.h"

typedef struct {
    long dump;             /* histo/text: 1-based heap dump, 0 = last (histo) / all (text) */
    const hp_model *model; /* shallow-size model */
    int heap;              /* records: also list heap sub-records */
    long top;              /* --top N: rows or objects to print; 0 = all; -1 = not given */
    long max_errors;       /* verify: errors to print before only counting */
    int shallow;           /* verify: skip object-reference checks */
    int strict;            /* verify: dangling object references are errors */
    long depth;            /* dominators: tree levels to print (default 1) */
    int json;              /* heap analyses: JSON instead of text */
    int retained;          /* histo: add retained sizes */
    int exclude_weak;      /* path: do not follow referents of weak-like references */
    const char *target;    /* path: object ID or class name */
    int no_index;          /* heap analyses: neither read nor write the on-disk index */
    long port;             /* serve: TCP port (0 = any free one) */
    const char *bind;      /* serve: address to listen on (default 127.0.0.1) */
    const char *output;    /* -o FILE: write there instead of stdout */
} hp_opts;

/* The --top limit: `fallback` when not given, SIZE_MAX for 0 (all). */
static inline size_t hp_top(const hp_opts *o, size_t fallback)
{
    return o->top < 0 ? fallback : o->top == 0 ? SIZE_MAX : (size_t)o->top;
}

/* Prints "hprof: error: <file>: <what> at offset <n>". */
void hp_report(FILE *err, const hp_file *f, const hp_error *e);

int hp_cmd_verify(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_records(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_summary(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_histo(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_sites(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_samples(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_threads(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_text(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_dominators(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_path(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_waste(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_suspects(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);
int hp_cmd_serve(const hp_file *f, const hp_opts *o, FILE *out, FILE *err);

#endif
