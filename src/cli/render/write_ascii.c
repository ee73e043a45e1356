/* Merged profiles in the ascii java.hprof.txt layout of the JDK 8 agent. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/render/merge.h"
#include "format/hprof_format.h"

static void put_ctime(FILE *out, uint64_t ms)
{
    char buf[64];
    time_t t = (time_t)(ms / 1000);
    fputs(ctime_r(&t, buf) ? buf : "???\n", out);
}

static void put_frame(FILE *out, const hp_profile *p, uint32_t frame)
{
    const hp_pframe *f = &p->frames[frame];
    const char *source = f->source ? hp_profile_str(p, f->source) : "<Unknown Source>";
    fprintf(out, "\t%s(%s:", hp_profile_str(p, f->func), source);
    if (f->line > 0)
        fprintf(out, "%d)\n", f->line);
    else
        fputs(f->line == HP_LINE_NATIVE     ? "Native method)\n"
              : f->line == HP_LINE_COMPILED ? "Compiled method)\n"
                                            : "Unknown line)\n",
              out);
}

/* TRACE block of a stack, its first `skip` frames left out (SITES' class). */
static void put_trace(FILE *out, const hp_profile *p, const hp_pstack *st, uint32_t serial,
                      uint32_t skip)
{
    const uint32_t *fr = p->stack_frames + st->first;
    fprintf(out, "TRACE %u:", serial);
    if (st->thread) fprintf(out, " (thread=%u)", st->thread);
    fputc('\n', out);
    if (st->depth == skip + 1 && p->frames[fr[skip]].kind == HP_FK_UNWALKABLE &&
        !strcmp(hp_profile_str(p, p->frames[fr[skip]].func), "[empty trace]")) {
        fputs("\t<empty>\n", out);
        return;
    }
    for (uint32_t i = skip; i < st->depth; i++)
        put_frame(out, p, fr[i]);
}

static double pct(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

static const char *top_method(const hp_profile *p, const hp_pstack *st, uint32_t skip)
{
    const hp_pframe *f = &p->frames[p->stack_frames[st->first + skip]];
    return f->kind == HP_FK_UNWALKABLE && !strcmp(hp_profile_str(p, f->func), "[empty trace]")
               ? "<empty trace>"
               : hp_profile_str(p, f->func);
}

/* CPU SAMPLES (count) or CPU TIME (ms) (calls, time), rows by cost. */
static int cpu_section(FILE *out, const hp_profile_set *set, int kind)
{
    const hp_profile *p = &set->kinds[kind];
    int cost = kind == HP_PK_SAMPLES ? 0 : 1;
    const char *title = kind == HP_PK_SAMPLES ? "CPU SAMPLES" : "CPU TIME (ms)";
    uint32_t n, *rows = hp_merge_rows(p, cost, &n);
    if (!rows) return -1;
    for (uint32_t i = 0; i < n; i++)
        put_trace(out, p, &p->stacks[rows[i]], hp_merge_trace(set, kind, rows[i]), 0);
    fprintf(out, "%s BEGIN (total = %" PRIu64 ") ", title, p->total[cost]);
    put_ctime(out, p->start_ms + p->duration_ms);
    if (n) fputs("rank   self  accum   count trace method\n", out);
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const hp_pstack *st = &p->stacks[rows[i]];
        double self = pct(st->v[cost], p->total[cost]);
        accum += self;
        fprintf(out, "%4u %5.2f%% %5.2f%% %7" PRIu64 " %5u %s\n", i + 1, self, accum, st->v[0],
                hp_merge_trace(set, kind, rows[i]), top_method(p, st, 0));
    }
    fprintf(out, "%s END\n", title);
    free(rows);
    return 0;
}

/* SITES: stacks are the allocated class, then the trace; rows by live bytes. */
static int sites_section(FILE *out, const hp_profile_set *set)
{
    const hp_profile *p = &set->kinds[HP_PK_SITES];
    uint32_t n, *rows = hp_merge_rows(p, 3, &n);
    if (!rows) return -1;
    for (uint32_t i = 0; i < n; i++)
        put_trace(out, p, &p->stacks[rows[i]], hp_merge_trace(set, HP_PK_SITES, rows[i]), 1);
    fputs("SITES BEGIN (ordered by live bytes) ", out);
    put_ctime(out, p->start_ms + p->duration_ms);
    fputs("          percent          live          alloc'ed  stack class\n"
          " rank   self  accum     bytes objs     bytes  objs trace name\n",
          out);
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const hp_pstack *st = &p->stacks[rows[i]];
        double self = pct(st->v[3], p->total[3]);
        accum += self;
        fprintf(out,
                "%5u %5.2f%% %5.2f%% %9" PRIu64 " %4" PRIu64 " %9" PRIu64 " %5" PRIu64 " %5u %s\n",
                i + 1, self, accum, st->v[3], st->v[2], st->v[1], st->v[0],
                hp_merge_trace(set, HP_PK_SITES, rows[i]),
                hp_profile_str(p, p->frames[p->stack_frames[st->first]].func));
    }
    fputs("SITES END\n", out);
    free(rows);
    return 0;
}

/* cpu=old: "count callee caller time", rows by calls. */
static int old_section(FILE *out, const hp_profile *p)
{
    uint32_t n, *rows = hp_merge_rows(p, 0, &n);
    if (!rows) return -1;
    fputs("count callee caller time\n", out);
    for (uint32_t i = 0; i < n; i++) {
        const hp_pstack *st = &p->stacks[rows[i]];
        fprintf(out, "%" PRIu64, st->v[0]);
        for (uint32_t j = 0; j < 2; j++) {
            const hp_pframe *f = &p->frames[p->stack_frames[st->first + j]];
            fprintf(out, " %s%s", hp_profile_str(p, f->func), hp_profile_str(p, f->sig));
        }
        fprintf(out, " %" PRIu64 "\n", st->v[1]);
    }
    free(rows);
    return 0;
}

static void header(FILE *out, const hp_profile_set *set)
{
    uint64_t start = 0;
    for (int k = 0; k < HP_PK_NKINDS; k++)
        if (set->present[k] && !start) start = set->kinds[k].start_ms;
    fputs(HP_ASCII_HEADER, out);
    put_ctime(out, start);
    fputs("\nWritten by hprof merge: the inputs' traces and frames renumbered, their counts "
          "summed.\n\n--------\n\n",
          out);
    /* threads are shared by all kinds (hp_merge numbers them by name) */
    hp_idmap seen = {0};
    for (int k = 0; k < HP_PK_NKINDS; k++) {
        const hp_profile *p = &set->kinds[k];
        for (size_t i = 0; i < p->thread_names.cap; i++) {
            if (!p->thread_names.used[i] || hp_idmap_put(&seen, p->thread_names.keys[i], 0) != 1)
                continue;
            fprintf(out,
                    "THREAD START (obj=%" PRIx64 ", id = %" PRIu64 ", name=\"%s\", group=\"\")\n",
                    p->thread_names.keys[i], p->thread_names.keys[i],
                    hp_profile_str(p, (uint32_t)p->thread_names.vals[i]));
        }
    }
    hp_idmap_free(&seen);
}

int hp_write_ascii(FILE *out, const hp_profile_set *set, hp_error *err)
{
    int rc = 0, old_only = set->present[HP_PK_OLD];
    for (int k = 0; k < HP_PK_NKINDS; k++)
        if (k != HP_PK_OLD && set->present[k]) old_only = 0;
    if (!old_only) header(out, set); /* cpu=old files have no header */
    if (set->present[HP_PK_SITES]) rc |= sites_section(out, set);
    if (set->present[HP_PK_SAMPLES]) rc |= cpu_section(out, set, HP_PK_SAMPLES);
    if (set->present[HP_PK_TIMES]) rc |= cpu_section(out, set, HP_PK_TIMES);
    if (set->present[HP_PK_OLD]) rc |= old_section(out, &set->kinds[HP_PK_OLD]);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}
