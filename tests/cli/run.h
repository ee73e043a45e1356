/* Runs a subcommand over an in-memory file and captures its output. */
#ifndef HPROF_TEST_RUN_H
#define HPROF_TEST_RUN_H

#include <stdio.h>
#include <stdlib.h>

#include "cli/commands/cli.h"
#include "hpbuild.h"

typedef int (*cmd_fn)(const hp_file *, const hp_opts *, FILE *, FILE *);

typedef struct {
    int rc; /* exit code; -1 if the header did not parse */
    char *out, *err;
    size_t out_len, err_len;
} run_result;

static inline hp_opts run_opts(void)
{
    return (hp_opts){.model = hp_model_default(), .max_errors = 20};
}

static inline run_result run_mem(cmd_fn fn, const uint8_t *data, size_t len, const hp_opts *o)
{
    run_result r = {0};
    FILE *out = open_memstream(&r.out, &r.out_len);
    FILE *err = open_memstream(&r.err, &r.err_len);
    hp_file f;
    hp_error e;
    if (hp_open_mem(&f, "t.hprof", data, len, &e) == 0) {
        r.rc = fn(&f, o, out, err);
    } else {
        hp_report(err, &f, &e);
        r.rc = -1;
    }
    fclose(out);
    fclose(err);
    return r;
}

static inline run_result run_cmd(cmd_fn fn, const hb_buf *b, const hp_opts *o)
{
    return run_mem(fn, b->data, b->len, o);
}

static inline void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

#endif
