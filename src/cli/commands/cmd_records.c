/* `hprof records`: one line per record (and optionally per heap sub-record). */
#include <inttypes.h>
#include <string.h>

#include "cli/commands/cli.h"

/* Prints up to 60 bytes of a UTF8 body; control and non-ASCII bytes are escaped
 * because JVM strings are modified UTF-8, which is not always valid UTF-8. */
static void put_chars(FILE *out, const uint8_t *s, uint32_t len)
{
    fputc('"', out);
    for (uint32_t i = 0; i < len && i < 60; i++) {
        if (s[i] == '"' || s[i] == '\\') fputc('\\', out);
        if (s[i] < 0x20 || s[i] >= 0x7f)
            fprintf(out, "\\x%02x", s[i]);
        else
            fputc(s[i], out);
    }
    fputs(len > 60 ? "\"..." : "\"", out);
}

static float as_float(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void fields(FILE *out, const hp_file *f, const hp_record *r, const hp_rec *o)
{
    switch (r->tag) {
    case HP_UTF8:
        fprintf(out, " id=0x%" PRIx64 " ", o->utf8.id);
        put_chars(out, o->utf8.chars, o->utf8.len);
        break;
    case HP_LOAD_CLASS:
        fprintf(out, " serial=%u class=0x%" PRIx64 " trace=%u name=0x%" PRIx64,
                o->load_class.serial, o->load_class.class_id, o->load_class.trace,
                o->load_class.name_id);
        break;
    case HP_UNLOAD_CLASS:
    case HP_END_THREAD:
        fprintf(out, " serial=%u", o->serial.serial);
        break;
    case HP_FRAME:
        fprintf(out,
                " id=0x%" PRIx64 " method=0x%" PRIx64 " sig=0x%" PRIx64 " source=0x%" PRIx64
                " class_serial=%u line=%d",
                o->frame.id, o->frame.method_id, o->frame.sig_id, o->frame.source_id,
                o->frame.class_serial, o->frame.line);
        break;
    case HP_TRACE:
        fprintf(out, " serial=%u thread=%u frames=%u", o->trace.serial, o->trace.thread,
                o->trace.nframes);
        for (uint32_t i = 0; i < o->trace.nframes; i++)
            fprintf(out, "%s0x%" PRIx64, i ? "," : " [", hp_trace_frame(f, o, i));
        if (o->trace.nframes) fputc(']', out);
        break;
    case HP_ALLOC_SITES:
        fprintf(out,
                " flags=0x%x cutoff=%g live_bytes=%u live_instances=%u alloc_bytes=%" PRIu64
                " alloc_instances=%" PRIu64 " sites=%u",
                o->sites.flags, (double)as_float(o->sites.cutoff), o->sites.live_bytes,
                o->sites.live_instances, o->sites.alloc_bytes, o->sites.alloc_instances,
                o->sites.nsites);
        break;
    case HP_HEAP_SUMMARY:
        fprintf(out,
                " live_bytes=%u live_instances=%u alloc_bytes=%" PRIu64 " alloc_instances=%" PRIu64,
                o->summary.live_bytes, o->summary.live_instances, o->summary.alloc_bytes,
                o->summary.alloc_instances);
        break;
    case HP_START_THREAD:
        fprintf(out,
                " serial=%u object=0x%" PRIx64 " trace=%u name=0x%" PRIx64 " group=0x%" PRIx64
                " parent=0x%" PRIx64,
                o->thread.serial, o->thread.object_id, o->thread.trace, o->thread.name_id,
                o->thread.group_id, o->thread.parent_id);
        break;
    case HP_CPU_SAMPLES:
        fprintf(out, " total=%u traces=%u", o->samples.total, o->samples.ntraces);
        break;
    case HP_CONTROL_SETTINGS:
        fprintf(out, " flags=0x%x depth=%u", o->control.flags, o->control.depth);
        break;
    default:
        break;
    }
}

static void sub_line(FILE *out, const hp_sub *s)
{
    fprintf(out, "%12" PRIu64 "   %-22s id=0x%" PRIx64, s->offset, hp_sub_name(s->tag), s->id);
    switch (s->tag) {
    case HP_CLASS_DUMP:
        fprintf(out,
                " super=0x%" PRIx64 " loader=0x%" PRIx64 " trace=%u instance_size=%u"
                " cp=%u statics=%u fields=%u",
                s->ref, s->loader, s->trace, s->instance_size, s->ncp, s->nstatics, s->nfields);
        break;
    case HP_INSTANCE_DUMP:
        fprintf(out, " class=0x%" PRIx64 " trace=%u bytes=%" PRIu64, s->ref, s->trace, s->data_len);
        break;
    case HP_OBJ_ARRAY_DUMP:
        fprintf(out, " class=0x%" PRIx64 " trace=%u length=%u", s->ref, s->trace, s->count);
        break;
    case HP_PRIM_ARRAY_DUMP:
    case HP_PRIM_ARRAY_NODATA:
        fprintf(out, " type=%s trace=%u length=%u", hp_type_name(s->elem_type), s->trace, s->count);
        break;
    case HP_ROOT_JNI_GLOBAL:
        fprintf(out, " ref=0x%" PRIx64, s->ref);
        break;
    case HP_ROOT_JNI_LOCAL:
    case HP_ROOT_JAVA_FRAME:
    case HP_ROOT_JNI_MONITOR:
        fprintf(out, " thread=%u frame=%d", s->thread, (int32_t)s->depth);
        break;
    case HP_ROOT_THREAD_OBJECT:
        fprintf(out, " thread=%u trace=%u", s->thread, s->depth);
        break;
    case HP_ROOT_NATIVE_STACK:
    case HP_ROOT_THREAD_BLOCK:
        fprintf(out, " thread=%u", s->thread);
        break;
    case HP_HEAP_DUMP_INFO:
        fprintf(out, " heap_type=%u", s->thread);
        break;
    default:
        break;
    }
    fputc('\n', out);
}

int hp_cmd_records(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    uint64_t pos = f->first_record;
    hp_record r;
    hp_rec o;
    hp_error e;
    int rc, status = HP_EXIT_OK;
    fprintf(out, "%s, ID size %u, time stamp %" PRIu64 " ms\n", f->version, f->id_size,
            f->timestamp_ms);
    fprintf(out, "%12s %-18s %10s %10s fields\n", "offset", "tag", "time(us)", "length");
    while ((rc = hp_next_record(f, &pos, &r, &e)) == 1) {
        char unknown[16];
        const char *name = hp_tag_name(r.tag);
        if (!name) snprintf(unknown, sizeof unknown, "tag 0x%02x", r.tag);
        fprintf(out, "%12" PRIu64 " %-18s %10u %10u", r.offset, name ? name : unknown, r.time,
                r.length);
        /* A body that does not decode is reported; its length still leads on. */
        if (hp_parse_record(f, &r, &o, &e) != 0) {
            fputs(" (malformed)\n", out);
            hp_report(err, f, &e);
            status = HP_EXIT_MALFORMED;
            continue;
        }
        fields(out, f, &r, &o);
        fputc('\n', out);
        if (opts->heap && (r.tag == HP_HEAP_DUMP || r.tag == HP_HEAP_DUMP_SEGMENT)) {
            hp_heap_iter it;
            hp_sub s;
            hp_heap_begin(&r, &it);
            while ((rc = hp_heap_next(f, &it, &s, &e)) == 1)
                sub_line(out, &s);
            if (rc < 0) {
                hp_report(err, f, &e);
                status = HP_EXIT_MALFORMED;
            }
        }
    }
    if (rc < 0) {
        hp_report(err, f, &e);
        status = HP_EXIT_MALFORMED;
    }
    return status;
}
