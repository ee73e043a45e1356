/* `hprof verify` over the non-heap records: structure, dump grouping and
 * cross-record references. */
#include "cli/analyses/verify.h"

#include <inttypes.h>
#include <string.h>

int hp_verify_records(hp_verifier *v, uint64_t *nrecords)
{
    const hp_file *f = v->f;
    uint64_t pos = f->first_record, open_at = UINT64_MAX;
    hp_record r;
    hp_rec o;
    hp_error e;
    int rc;
    while ((rc = hp_next_record(f, &pos, &r, &e)) == 1) {
        ++*nrecords;
        if (hp_parse_record(f, &r, &o, &e)) {
            hp_verr(v, e.offset, "%s", e.what);
            continue;
        }
        switch (r.tag) {
        case HP_HEAP_DUMP:
            if (open_at != UINT64_MAX)
                hp_verr(v, r.offset,
                        "HEAP DUMP while the segmented dump started at offset %" PRIu64
                        " has no HEAP DUMP END",
                        open_at);
            open_at = UINT64_MAX;
            break;
        case HP_HEAP_DUMP_SEGMENT:
            if (strcmp(f->version, HP_VERSION_1_0_1) == 0)
                hp_verr(v, r.offset, "HEAP DUMP SEGMENT in a JAVA PROFILE 1.0.1 file");
            if (open_at == UINT64_MAX) open_at = r.offset;
            break;
        case HP_HEAP_DUMP_END:
            if (open_at == UINT64_MAX)
                hp_verr(v, r.offset, "HEAP DUMP END without a preceding HEAP DUMP SEGMENT");
            open_at = UINT64_MAX;
            break;
        default:
            break;
        }
    }
    if (rc < 0) {
        hp_verr(v, e.offset, "%s", e.what);
        return -1;
    }
    if (open_at != UINT64_MAX)
        hp_verr(v, f->size,
                "file cut short: segmented heap dump started at offset %" PRIu64
                " has no HEAP DUMP END",
                open_at);
    return 0;
}

static void need_string(hp_verifier *v, const hp_record *r, uint64_t id, const char *what)
{
    if (!hp_idmap_get(&v->ix->strings, id))
        hp_verr(v, r->offset, "%s names %s string 0x%" PRIx64 " with no UTF8 record",
                hp_tag_name(r->tag), what, id);
}

static void need_trace(hp_verifier *v, const hp_record *r, uint32_t serial)
{
    if (serial != 0 && !hp_idmap_get(&v->ix->traces, serial))
        hp_verr(v, r->offset, "%s names stack trace serial %u with no TRACE record",
                hp_tag_name(r->tag), serial);
}

static void need_class(hp_verifier *v, const hp_record *r, uint32_t serial)
{
    if (!hp_idmap_get(&v->ix->serials, serial))
        hp_verr(v, r->offset, "%s names class serial %u with no LOAD CLASS record",
                hp_tag_name(r->tag), serial);
}

/* Reports a record whose key an earlier record of the same kind already used
 * (the index keeps the first definition of every key). */
static void unique(hp_verifier *v, const hp_record *r, const hp_idmap *m, uint64_t key,
                   const char *what)
{
    const uint64_t *at = hp_idmap_get(m, key);
    if (at && *at != r->offset)
        hp_verr(v, r->offset, "duplicate %s %s 0x%" PRIx64 " (first at offset %" PRIu64 ")",
                hp_tag_name(r->tag), what, key, *at);
}

void hp_verify_references(hp_verifier *v)
{
    const hp_file *f = v->f;
    const hp_index *ix = v->ix;
    uint64_t pos = f->first_record;
    hp_record r;
    hp_rec o;
    hp_error e;
    while (hp_next_record(f, &pos, &r, &e) == 1) {
        if (hp_parse_record(f, &r, &o, &e)) continue;
        switch (r.tag) {
        case HP_UTF8:
            unique(v, &r, &ix->strings, o.utf8.id, "string ID");
            break;
        case HP_LOAD_CLASS:
            unique(v, &r, &ix->serials, o.load_class.serial, "class serial");
            /* No trace check: writers emit TRACEs lazily, and with cpu=samples only
             * the sampled ones, so a class's load trace may never be written. */
            need_string(v, &r, o.load_class.name_id, "class name");
            break;
        case HP_UNLOAD_CLASS:
            need_class(v, &r, o.serial.serial);
            break;
        case HP_FRAME:
            unique(v, &r, &ix->frames, o.frame.id, "frame ID");
            need_string(v, &r, o.frame.method_id, "method name");
            need_string(v, &r, o.frame.sig_id, "method signature");
            if (o.frame.source_id) need_string(v, &r, o.frame.source_id, "source file");
            need_class(v, &r, o.frame.class_serial);
            break;
        case HP_TRACE:
            unique(v, &r, &ix->traces, o.trace.serial, "stack trace serial");
            for (uint32_t i = 0; i < o.trace.nframes; i++) {
                uint64_t fid = hp_trace_frame(f, &o, i);
                if (!hp_idmap_get(&ix->frames, fid))
                    hp_verr(v, r.offset, "TRACE %u frame %u is 0x%" PRIx64 " with no FRAME record",
                            o.trace.serial, i, fid);
            }
            break;
        case HP_ALLOC_SITES:
            for (uint32_t i = 0; i < o.sites.nsites; i++) {
                hp_site s;
                hp_site_at(&o, i, &s);
                need_class(v, &r, s.class_serial);
                need_trace(v, &r, s.trace);
            }
            break;
        case HP_START_THREAD:
            unique(v, &r, &ix->threads, o.thread.serial, "thread serial");
            /* The thread's trace may be unwritten, as for LOAD CLASS. */
            if (o.thread.name_id) need_string(v, &r, o.thread.name_id, "thread name");
            if (o.thread.group_id) need_string(v, &r, o.thread.group_id, "group name");
            if (o.thread.parent_id) need_string(v, &r, o.thread.parent_id, "parent group name");
            break;
        case HP_END_THREAD:
            if (ix->counts[HP_START_THREAD] && !hp_idmap_get(&ix->threads, o.serial.serial))
                hp_verr(v, r.offset, "END THREAD for thread serial %u with no START THREAD",
                        o.serial.serial);
            break;
        case HP_CPU_SAMPLES:
            for (uint32_t i = 0; i < o.samples.ntraces; i++) {
                uint32_t count, trace;
                hp_sample_at(&o, i, &count, &trace);
                need_trace(v, &r, trace);
            }
            break;
        default:
            break;
        }
    }
}
