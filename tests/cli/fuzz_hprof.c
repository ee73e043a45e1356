/* libFuzzer entry point: every subcommand over one in-memory file. */
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static int (*const fns[])(const hp_file *, const hp_opts *, FILE *, FILE *) = {
        hp_cmd_verify,  hp_cmd_records, hp_cmd_summary, hp_cmd_histo,     hp_cmd_sites,
        hp_cmd_samples, hp_cmd_threads, hp_cmd_text,    hp_cmd_dominators};
    if (!sink) sink = fopen("/dev/null", "w");
    hp_file f;
    hp_error e;
    if (hp_open_mem(&f, "fuzz", data, size, &e) != 0) return 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        hp_opts o = {.model = hp_model_default(), .max_errors = 5, .heap = 1, .depth = 3};
        fns[i](&f, &o, sink, sink);
    }
    /* The object graph, dominators and retained sizes behind histo --retained. */
    hp_opts o = {.model = hp_model_default(), .retained = 1, .json = 1};
    hp_cmd_histo(&f, &o, sink, sink);
    static const char *const targets[] = {"Foo", "0x10", "int[]"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        hp_opts p = {.model = hp_model_default(), .target = targets[i], .exclude_weak = (int)i & 1};
        hp_cmd_path(&f, &p, sink, sink);
    }
    return 0;
}
