/* `hprof verify`: record structure, dump grouping and cross-record references. */
#include "verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

static void vreport(hp_verifier *v, uint64_t offset, const char *fmt, va_list ap)
{
    if (v->max_errors < 0 || v->nerrors < (uint64_t)v->max_errors) {
        char what[300];
        vsnprintf(what, sizeof what, fmt, ap);
        fprintf(v->err, "hprof: error: %s: %s at offset %" PRIu64 "\n", v->f->path, what, offset);
    }
    v->nerrors++;
}

void hp_verr(hp_verifier *v, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(v, offset, fmt, ap);
    va_end(ap);
}

void hp_vdangling(hp_verifier *v, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (v->strict)
        vreport(v, offset, fmt, ap);
    else if (v->nwarnings++ == 0) /* only counted; --strict lists them */
        v->first_dangling = offset;
    va_end(ap);
}

/* Pass A: every record decodes; heap dump records are grouped properly. */
static int check_records(hp_verifier *v, uint64_t *nrecords)
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

/* Pass B: keys are unique and every ID or serial a record names is defined. */
static void check_references(hp_verifier *v)
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

int hp_cmd_verify(const hp_file *f, const hp_opts *opts, FILE *out, FILE *err)
{
    hp_verifier v = {.f = f, .err = err, .max_errors = opts->max_errors, .strict = opts->strict};
    uint64_t nrecords = 0;
    size_t ndumps = 0;
    hp_index ix;
    hp_error e;
    if (check_records(&v, &nrecords) == 0) {
        if (hp_index_build(&ix, f, 1, &e) != 0) {
            hp_verr(&v, e.offset, "%s", e.what);
        } else {
            v.ix = &ix;
            check_references(&v);
            for (size_t d = 0; d < ix.ndumps; d++)
                hp_verify_dump(&v, d, opts->shallow);
            ndumps = ix.ndumps;
            hp_index_free(&ix);
        }
    }
    if (v.nerrors) {
        fprintf(err, "hprof: %s: FAILED: %" PRIu64 " error%s\n", f->path, v.nerrors,
                v.nerrors == 1 ? "" : "s");
        return HP_EXIT_MALFORMED;
    }
    fprintf(out,
            "%s: OK: %s, ID size %u, %" PRIu64 " record%s, %zu heap dump%s, %" PRIu64
            " object%s, %" PRIu64 " dangling reference%s",
            f->path, f->version, f->id_size, nrecords, nrecords == 1 ? "" : "s", ndumps,
            ndumps == 1 ? "" : "s", v.objects, v.objects == 1 ? "" : "s", v.nwarnings,
            v.nwarnings == 1 ? "" : "s");
    if (v.nwarnings)
        fprintf(out, " (first at offset %" PRIu64 "; --strict lists them)", v.first_dangling);
    fputc('\n', out);
    return HP_EXIT_OK;
}
