#include "agent/modes/cpu_samples/counts.h"

#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *counts, *reported; /* indexed by trace serial - base */
static size_t cap;

static bool grow(size_t need)
{
    size_t n = cap ? cap : 1024;
    while (n <= need)
        n *= 2;
    uint32_t *c = realloc(counts, n * sizeof *c);
    if (c == NULL) return false;
    counts = c;
    uint32_t *r = realloc(reported, n * sizeof *r);
    if (r == NULL) return false;
    reported = r;
    memset(counts + cap, 0, (n - cap) * sizeof *c);
    memset(reported + cap, 0, (n - cap) * sizeof *r);
    cap = n;
    return true;
}

void hp_cpu_counts_add(uint32_t trace_serial, uint32_t n)
{
    if (trace_serial < HP_TRACE_SERIAL_BASE) return; /* no trace: out of memory */
    size_t i = trace_serial - HP_TRACE_SERIAL_BASE;
    pthread_mutex_lock(&lock);
    if (i < cap || grow(i)) counts[i] += n;
    pthread_mutex_unlock(&lock);
}

static int by_count(const void *a, const void *b)
{
    const struct hp_cpu_row *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return (x->trace > y->trace) - (x->trace < y->trace);
}

struct hp_cpu_row *hp_cpu_counts_snapshot(size_t *n, uint64_t *total)
{
    *n = 0;
    *total = 0;
    pthread_mutex_lock(&lock);
    size_t rows = 0;
    for (size_t i = 0; i < cap; i++)
        rows += counts[i] != 0;
    struct hp_cpu_row *out = malloc((rows ? rows : 1) * sizeof *out);
    for (size_t i = 0; i < cap; i++) {
        /* Without memory for the rows nothing is reported, and nothing forgotten. */
        reported[i] = out ? counts[i] : 0;
        if (out == NULL || counts[i] == 0) continue;
        out[*n].trace = (uint32_t)(HP_TRACE_SERIAL_BASE + i);
        out[*n].count = counts[i];
        out[*n].cost = counts[i];
        *total += counts[i];
        (*n)++;
    }
    pthread_mutex_unlock(&lock);
    if (out) qsort(out, *n, sizeof *out, by_count);
    return out;
}

void hp_cpu_counts_forget_reported(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < cap; i++) {
        counts[i] -= reported[i];
        reported[i] = 0;
    }
    pthread_mutex_unlock(&lock);
}

void hp_cpu_counts_clear(void)
{
    pthread_mutex_lock(&lock);
    if (cap) {
        memset(counts, 0, cap * sizeof *counts);
        memset(reported, 0, cap * sizeof *reported);
    }
    pthread_mutex_unlock(&lock);
}
