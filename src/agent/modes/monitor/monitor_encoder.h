/* Records of monitor=y. Ascii only: the option parser rejects monitor=y
 * with format=b, as the original did. */
#ifndef HPROF_MONITOR_ENCODER_H
#define HPROF_MONITOR_ENCODER_H

#include <stdint.h>

struct hp_monitor_row {
    uint32_t trace;
    const char *class_name; /* dotted */
    uint64_t time_ns;
    uint64_t hits;
};

struct hp_monitor_usage {
    const char *sig; /* raw JVM signature, as the original printed it */
    uint32_t owner;  /* thread serial, 0: unowned */
    int entry_count;
    const uint32_t *waiters, *notify_waiters;
    int n_waiters, n_notify_waiters;
};

struct hp_monitor_encoder {
    void (*wait)(const char *sig, int64_t timeout_ms, uint32_t thread);
    void (*waited)(const char *sig, int64_t waited_ms, uint32_t thread);
    void (*dump_begin)(void);
    void (*dump_thread)(uint32_t thread, uint32_t trace, const char *status);
    void (*dump_monitor)(const struct hp_monitor_usage *m);
    void (*dump_end)(void);
    /* rows sorted, total over all rows; writes nothing below 1 ms */
    void (*time_table)(const struct hp_monitor_row *rows, uint32_t n, uint64_t total_ns,
                       double cutoff);
};

extern const struct hp_monitor_encoder hp_monitor_ascii;

#endif
