/* The agent's option string: parsing, defaults and cross-option rules.
 * Pure C with no JVM dependency so that every error text is unit-tested. */
#ifndef HPROF_OPTIONS_H
#define HPROF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hp_format { HP_FORMAT_ASCII, HP_FORMAT_BINARY };

/* The most frames a trace keeps, for every mode: depth= above it is refused
 * (the JDK 8 agent took any int and could not honour it). */
#define HP_MAX_DEPTH 1024

struct hp_options {
    bool help;        /* the whole string was "help" */
    bool heap_dump;   /* heap=dump|all */
    bool heap_sites;  /* heap=sites|all */
    bool cpu_samples; /* cpu=samples|y */
    bool cpu_times;   /* cpu=times|old */
    bool cpu_old;     /* cpu=old: old prof report, trace depth 2 */
    bool monitor;     /* monitor=y */
    enum hp_format format;
    char *file;     /* NULL: default name for the format */
    char *net_host; /* non-NULL with net= */
    int net_port;
    int depth;
    int interval_ms;
    double cutoff;
    bool lineno, thread, doe, msa, force, verbose;
    bool javaonly; /* cpu=samples: only samples of walked Java stacks */
    bool primfields, primarrays;
    bool coredump, errorexit, pause, debug; /* see core/error.h and core/pause.h */
    long logflags, debugflags;
    uint64_t alloc_interval; /* heap=sites sampling interval in bytes, 0 = exact */
};

/* Parses `text` (NULL or "" means defaults). On error returns -1 and writes
 * the description the original printed after "hprof option error: " into
 * err; the options are then left freed. */
int hp_options_parse(const char *text, struct hp_options *o, char *err, size_t errlen);
void hp_options_free(struct hp_options *o);

/* The `help` text, exactly as the JDK 8 product build printed it. */
extern const char hp_usage_text[];

#endif
