/* Ascii MONITOR DUMP, MONITOR TIME and WAIT/WAITED lines (reference 3.7). */
#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/modes/monitor/monitor_encoder.h"
#include "agent/output/ascii/text.h"

#include <inttypes.h>

static void wait_line(const char *sig, int64_t timeout_ms, uint32_t thread)
{
    hp_out_printf("WAIT: MONITOR %s, timeout=%" PRId64 ", thread %u\n", sig, timeout_ms, thread);
}

static void waited_line(const char *sig, int64_t waited_ms, uint32_t thread)
{
    hp_out_printf("WAITED: MONITOR %s, time_waited=%" PRId64 ", thread %u\n", sig, waited_ms,
                  thread);
}

static void dump_begin(void)
{
    hp_out_printf("MONITOR DUMP BEGIN\n");
}

static void dump_thread(uint32_t thread, uint32_t trace, const char *status)
{
    hp_out_printf("    THREAD %u, trace %u, status: %s\n", thread, trace, status);
}

static void thread_list(struct hp_text *t, const char *what, const uint32_t *threads, int n)
{
    hp_text_printf(t, "\t%s:", what);
    for (int i = 0; i < n; i++)
        hp_text_printf(t, "%s thread %u", i ? "," : "", threads[i]);
    hp_text_printf(t, "\n");
}

static void dump_monitor(const struct hp_monitor_usage *m)
{
    struct hp_text t;
    hp_text_init(&t);
    if (m->owner) {
        hp_text_printf(&t, "    MONITOR %s\n", m->sig);
        hp_text_printf(&t, "\towner: thread %u, entry count: %d\n", m->owner, m->entry_count);
    } else {
        hp_text_printf(&t, "    MONITOR %s unowned\n", m->sig);
    }
    thread_list(&t, "waiting to enter", m->waiters, m->n_waiters);
    thread_list(&t, "waiting to be notified", m->notify_waiters, m->n_notify_waiters);
    hp_text_emit(&t);
}

static void dump_end(void)
{
    hp_out_printf("MONITOR DUMP END\n");
}

static void time_table(const struct hp_monitor_row *rows, uint32_t n, uint64_t total_ns,
                       double cutoff)
{
    /* Under a millisecond, as the original: no section whose header would
     * read "total = 0 ms". */
    if (total_ns < 1000000u) return;
    char date[32];
    hp_ctime(date);
    struct hp_text t;
    hp_text_init(&t);
    hp_text_printf(&t, "MONITOR TIME BEGIN (total = %" PRIu64 " ms) %s", total_ns / 1000000u, date);
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        double self = (double)rows[i].time_ns / (double)total_ns;
        if (self < cutoff) break;
        if (i == 0) hp_text_printf(&t, "rank   self  accum   count trace monitor\n");
        accum += self;
        hp_text_printf(&t, "%4u %5.2f%% %5.2f%% %7" PRIu64 " %5u %s (Java)\n", i + 1, self * 100.0,
                       accum * 100.0, rows[i].hits, rows[i].trace, rows[i].class_name);
    }
    hp_text_printf(&t, "MONITOR TIME END\n");
    hp_text_emit(&t);
}

const struct hp_monitor_encoder hp_monitor_ascii = {
    .wait = wait_line,
    .waited = waited_line,
    .dump_begin = dump_begin,
    .dump_thread = dump_thread,
    .dump_monitor = dump_monitor,
    .dump_end = dump_end,
    .time_table = time_table,
};
