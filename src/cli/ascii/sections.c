#include "cli/ascii/sections.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

void hp_record_ctime(const hp_file *f, uint32_t time_us, char buf[64])
{
    time_t t = (time_t)((f->timestamp_ms + time_us / 1000) / 1000);
    if (!ctime_r(&t, buf)) strcpy(buf, "???\n");
}

static void print_frame(FILE *out, const hp_index *ix, uint64_t frame_id)
{
    const uint64_t *at = hp_idmap_get(&ix->frames, frame_id);
    if (!at) {
        fprintf(out, "\t<unknown frame 0x%" PRIx64 ">\n", frame_id);
        return;
    }
    hp_record r;
    hp_rec o;
    char cls[512], method[256], source[256], line[32];
    hp_index_record(ix, *at, &r, &o);
    if (!hp_index_class_name_by_serial(ix, o.frame.class_serial, cls, sizeof cls))
        strcpy(cls, "<Unknown Class>");
    hp_index_cstring(ix, o.frame.method_id, method, sizeof method, "<Unknown Method>");
    hp_index_cstring(ix, o.frame.source_id, source, sizeof source, "<Unknown Source>");
    switch (o.frame.line) {
    case 0:
    case -1:
        strcpy(line, "Unknown line");
        break;
    case -2:
        strcpy(line, "Compiled method");
        break;
    case -3:
        strcpy(line, "Native method");
        break;
    default:
        snprintf(line, sizeof line, "%d", o.frame.line);
        break;
    }
    fprintf(out, "\t%s.%s(%s:%s)\n", cls, method, source, line);
}

int hp_print_trace(FILE *out, const hp_index *ix, uint32_t serial)
{
    const uint64_t *at = hp_idmap_get(&ix->traces, serial);
    if (!at) return 0;
    hp_record r;
    hp_rec o;
    hp_index_record(ix, *at, &r, &o);
    fprintf(out, "TRACE %u:", o.trace.serial);
    if (o.trace.thread) fprintf(out, " (thread=%u)", o.trace.thread);
    fputc('\n', out);
    if (o.trace.nframes == 0) fputs("\t<empty>\n", out);
    for (uint32_t i = 0; i < o.trace.nframes; i++)
        print_frame(out, ix, hp_trace_frame(ix->f, &o, i));
    return 1;
}

void hp_trace_top_method(const hp_index *ix, uint32_t serial, char *buf, size_t cap)
{
    const uint64_t *at = hp_idmap_get(&ix->traces, serial);
    hp_record r;
    hp_rec o;
    if (at) hp_index_record(ix, *at, &r, &o);
    if (!at || o.trace.nframes == 0) {
        snprintf(buf, cap, "<empty trace>");
        return;
    }
    const uint64_t *fat = hp_idmap_get(&ix->frames, hp_trace_frame(ix->f, &o, 0));
    if (!fat) {
        snprintf(buf, cap, "<unknown frame>");
        return;
    }
    char cls[512], method[256];
    hp_index_record(ix, *fat, &r, &o);
    if (!hp_index_class_name_by_serial(ix, o.frame.class_serial, cls, sizeof cls))
        strcpy(cls, "<Unknown Class>");
    hp_index_cstring(ix, o.frame.method_id, method, sizeof method, "<Unknown Method>");
    snprintf(buf, cap, "%s.%s", cls, method);
}

static double percent(uint64_t part, uint64_t total)
{
    return total ? (double)part * 100.0 / (double)total : 0.0;
}

void hp_print_sites(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o)
{
    char when[64];
    hp_record_ctime(ix->f, r->time, when);
    fprintf(out, "SITES BEGIN (ordered by %s) %s",
            o->sites.flags & HP_SITES_BY_ALLOC ? "allocated bytes" : "live bytes", when);
    fputs("          percent          live          alloc'ed  stack class\n"
          " rank   self  accum     bytes objs     bytes  objs trace name\n",
          out);
    double accum = 0;
    for (uint32_t i = 0; i < o->sites.nsites; i++) {
        hp_site s;
        char name[512];
        hp_site_at(o, i, &s);
        if (!hp_index_class_name_by_serial(ix, s.class_serial, name, sizeof name) &&
            hp_type_name(s.array_type))
            snprintf(name, sizeof name, "%s[]", hp_type_name(s.array_type));
        double self = percent(s.live_bytes, o->sites.live_bytes);
        accum += self;
        fprintf(out, "%5u %5.2f%% %5.2f%% %9u %4u %9u %5u %5u %s\n", i + 1, self, accum,
                s.live_bytes, s.live_instances, s.alloc_bytes, s.alloc_instances, s.trace, name);
    }
    fputs("SITES END\n", out);
}

void hp_print_samples(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o)
{
    char when[64];
    hp_record_ctime(ix->f, r->time, when);
    fprintf(out, "CPU SAMPLES BEGIN (total = %d) %s", (int)o->samples.total, when);
    if (o->samples.ntraces) fputs("rank   self  accum   count trace method\n", out);
    double accum = 0;
    for (uint32_t i = 0; i < o->samples.ntraces; i++) {
        uint32_t count, trace;
        char method[800];
        hp_sample_at(o, i, &count, &trace);
        hp_trace_top_method(ix, trace, method, sizeof method);
        double self = percent(count, o->samples.total);
        accum += self;
        fprintf(out, "%4u %5.2f%% %5.2f%% %7u %5u %s\n", i + 1, self, accum, count, trace, method);
    }
    fputs("CPU SAMPLES END\n", out);
}

void hp_print_thread(FILE *out, const hp_index *ix, const hp_record *r, const hp_rec *o)
{
    char name[256], group[256];
    if (r->tag == HP_END_THREAD) {
        fprintf(out, "THREAD END (id = %u)\n", o->serial.serial);
        return;
    }
    hp_index_cstring(ix, o->thread.name_id, name, sizeof name, "");
    hp_index_cstring(ix, o->thread.group_id, group, sizeof group, "");
    fprintf(out, "THREAD START (obj=%" PRIx64 ", id = %u, name=\"%s\", group=\"%s\")\n",
            o->thread.object_id, o->thread.serial, name, group);
}
