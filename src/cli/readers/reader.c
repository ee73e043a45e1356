/* File mapping, header and top-level record decoding. */
#include "cli/readers/reader.h"

#include "cli/readers/gunzip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int hp_fail(hp_error *err, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    // cppcheck-suppress ctuuninitvar ; err is output only: this fills it
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    err->offset = offset;
    return -1;
}

uint64_t hp_value(const uint8_t *p, unsigned size)
{
    switch (size) {
    case 1:
        return p[0];
    case 2:
        return hp_be16(p);
    case 4:
        return hp_be32(p);
    default:
        return hp_be64(p);
    }
}

static int parse_header(hp_file *f, hp_error *err)
{
    static const char magic[] = HP_VERSION_PREFIX;
    const uint8_t *nul =
        memchr(f->base, 0, f->size < sizeof f->version ? f->size : sizeof f->version);
    if (hp_is_gzip(f->base, f->size))
        return hp_fail(err, 0, "gzip-compressed data (only files are inflated)");
    if (f->size < sizeof magic - 1 || memcmp(f->base, magic, sizeof magic - 1) != 0)
        return hp_fail(err, 0, "not an HPROF file (no \"JAVA PROFILE 1.0.x\" header)");
    if (!nul) return hp_fail(err, 0, "header string not NUL-terminated");
    size_t vlen = (size_t)(nul - f->base);
    memcpy(f->version, f->base, vlen + 1);
    if (strcmp(f->version, HP_VERSION_1_0_1) != 0 && strcmp(f->version, HP_VERSION_1_0_2) != 0)
        return hp_fail(err, 0, "unsupported format version \"%s\"", f->version);
    uint64_t pos = vlen + 1;
    if (f->size - pos < HP_HEADER_TAIL_SIZE) return hp_fail(err, pos, "truncated header");
    f->id_size = hp_be32(f->base + pos);
    if (!hp_id_size_valid(f->id_size))
        return hp_fail(err, pos, "bad ID size %u (must be 4 or 8)", f->id_size);
    f->timestamp_ms = hp_be64(f->base + pos + 4);
    f->first_record = pos + HP_HEADER_TAIL_SIZE;
    return 0;
}

int hp_open_mem(hp_file *f, const char *name, const uint8_t *buf, size_t len, hp_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = name;
    f->base = buf;
    f->size = len;
    return parse_header(f, err);
}

/* Maps fd read-only into f (size from fstat). */
static int map_fd(hp_file *f, int fd, hp_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return hp_fail(err, 0, "not a regular file");
    f->size = (uint64_t)st.st_size;
    if (f->size == 0) {
        f->base = (const uint8_t *)"";
        return 0;
    }
    void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return hp_fail(err, 0, "cannot map: %s", strerror(errno));
    madvise(m, f->size, MADV_SEQUENTIAL);
    f->base = m;
    f->mapped = 1;
    return 0;
}

int hp_map_file(hp_file *f, const char *path, hp_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return hp_fail(err, 0, "cannot open: %s", strerror(errno));
    int rc = map_fd(f, fd, err);
    close(fd);
    if (rc != 0) hp_close(f);
    return rc;
}

int hp_open(hp_file *f, const char *path, hp_error *err)
{
    if (hp_map_file(f, path, err)) return -1;
    if (hp_is_gzip(f->base, f->size)) {
        /* A gzipped dump is inflated to an unlinked temporary file, mapped instead. */
        int tmp = hp_gunzip_to_temp(f->base, f->size, err);
        hp_close(f);
        if (tmp < 0) {
            f->base = (const uint8_t *)""; /* mapped and read: bad content, not I/O */
            return -1;
        }
        int rc = map_fd(f, tmp, err);
        close(tmp);
        if (rc != 0) {
            hp_close(f);
            return -1;
        }
    }
    return parse_header(f, err);
}

void hp_release(const hp_file *f, uint64_t from, uint64_t to)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    from = (from + page - 1) / page * page; /* whole pages inside the range only */
    to = to / page * page;
    if (f->mapped && from < to && to <= f->size)
        madvise((void *)(f->base + from), (size_t)(to - from), MADV_DONTNEED);
}

void hp_close(hp_file *f)
{
    if (f->mapped) munmap((void *)f->base, f->size);
    f->mapped = 0;
    f->base = NULL;
}

int hp_next_record(const hp_file *f, uint64_t *pos, hp_record *r, hp_error *err)
{
    uint64_t at = *pos;
    if (at == f->size) return 0;
    if (f->size - at < HP_RECORD_HEADER_SIZE)
        return hp_fail(err, at,
                       "file cut short: truncated record header (%llu bytes left, need %d)",
                       (unsigned long long)(f->size - at), HP_RECORD_HEADER_SIZE);
    const uint8_t *p = f->base + at;
    r->tag = p[0];
    r->time = hp_be32(p + 1);
    r->length = hp_be32(p + 5);
    r->offset = at;
    r->body = p + HP_RECORD_HEADER_SIZE;
    if (f->size - at - HP_RECORD_HEADER_SIZE < r->length)
        return hp_fail(err, at,
                       "file cut short: record length %u runs past end of file (%llu bytes left)",
                       r->length, (unsigned long long)(f->size - at - HP_RECORD_HEADER_SIZE));
    *pos = at + HP_RECORD_HEADER_SIZE + r->length;
    return 1;
}

/* Checks a record body length; `want` may overflow for hostile counts, hence 64 bits. */
static int expect_len(const hp_record *r, uint64_t want, hp_error *err)
{
    if (r->length == want) return 0;
    return hp_fail(err, r->offset, "%s record length %u, expected %llu", hp_tag_name(r->tag),
                   r->length, (unsigned long long)want);
}

static int expect_min(const hp_record *r, uint64_t min, hp_error *err)
{
    if (r->length >= min) return 0;
    return hp_fail(err, r->offset, "%s record length %u, expected at least %llu",
                   hp_tag_name(r->tag), r->length, (unsigned long long)min);
}

int hp_parse_record(const hp_file *f, const hp_record *r, hp_rec *o, hp_error *err)
{
    const uint8_t *b = r->body;
    const uint32_t id = f->id_size;
    memset(o, 0, sizeof *o);
    switch (r->tag) {
    case HP_UTF8:
        if (expect_min(r, id, err)) return -1;
        o->utf8.id = hp_id(f, b);
        o->utf8.chars = b + id;
        o->utf8.len = r->length - id;
        return 0;
    case HP_LOAD_CLASS:
        if (expect_len(r, hp_load_class_size(id), err)) return -1;
        o->load_class.serial = hp_be32(b);
        o->load_class.class_id = hp_id(f, b + 4);
        o->load_class.trace = hp_be32(b + 4 + id);
        o->load_class.name_id = hp_id(f, b + 8 + id);
        return 0;
    case HP_UNLOAD_CLASS:
    case HP_END_THREAD:
        if (expect_len(r, HP_SERIAL_RECORD_SIZE, err)) return -1;
        o->serial.serial = hp_be32(b);
        return 0;
    case HP_FRAME:
        if (expect_len(r, hp_frame_size(id), err)) return -1;
        o->frame.id = hp_id(f, b);
        o->frame.method_id = hp_id(f, b + id);
        o->frame.sig_id = hp_id(f, b + 2 * id);
        o->frame.source_id = hp_id(f, b + 3 * id);
        o->frame.class_serial = hp_be32(b + 4 * id);
        o->frame.line = (int32_t)hp_be32(b + 4 * id + 4);
        return 0;
    case HP_TRACE:
        if (expect_min(r, HP_TRACE_FIXED_SIZE, err)) return -1;
        o->trace.serial = hp_be32(b);
        o->trace.thread = hp_be32(b + 4);
        o->trace.nframes = hp_be32(b + 8);
        o->trace.frames = b + HP_TRACE_FIXED_SIZE;
        return expect_len(r, HP_TRACE_FIXED_SIZE + (uint64_t)o->trace.nframes * id, err);
    case HP_ALLOC_SITES:
        if (expect_min(r, HP_ALLOC_SITES_FIXED_SIZE, err)) return -1;
        o->sites.flags = hp_be16(b);
        o->sites.cutoff = hp_be32(b + 2);
        o->sites.live_bytes = hp_be32(b + 6);
        o->sites.live_instances = hp_be32(b + 10);
        o->sites.alloc_bytes = hp_be64(b + 14);
        o->sites.alloc_instances = hp_be64(b + 22);
        o->sites.nsites = hp_be32(b + 30);
        o->sites.sites = b + HP_ALLOC_SITES_FIXED_SIZE;
        return expect_len(
            r, HP_ALLOC_SITES_FIXED_SIZE + (uint64_t)o->sites.nsites * HP_ALLOC_SITE_SIZE, err);
    case HP_HEAP_SUMMARY:
        if (expect_len(r, HP_HEAP_SUMMARY_SIZE, err)) return -1;
        o->summary.live_bytes = hp_be32(b);
        o->summary.live_instances = hp_be32(b + 4);
        o->summary.alloc_bytes = hp_be64(b + 8);
        o->summary.alloc_instances = hp_be64(b + 16);
        return 0;
    case HP_START_THREAD:
        if (expect_len(r, hp_start_thread_size(id), err)) return -1;
        o->thread.serial = hp_be32(b);
        o->thread.object_id = hp_id(f, b + 4);
        o->thread.trace = hp_be32(b + 4 + id);
        o->thread.name_id = hp_id(f, b + 8 + id);
        o->thread.group_id = hp_id(f, b + 8 + 2 * id);
        o->thread.parent_id = hp_id(f, b + 8 + 3 * id);
        return 0;
    case HP_CPU_SAMPLES:
        if (expect_min(r, HP_CPU_SAMPLES_FIXED_SIZE, err)) return -1;
        o->samples.total = hp_be32(b);
        o->samples.ntraces = hp_be32(b + 4);
        o->samples.traces = b + HP_CPU_SAMPLES_FIXED_SIZE;
        return expect_len(
            r, HP_CPU_SAMPLES_FIXED_SIZE + (uint64_t)o->samples.ntraces * HP_CPU_SAMPLE_SIZE, err);
    case HP_CONTROL_SETTINGS:
        if (expect_len(r, HP_CONTROL_SETTINGS_SIZE, err)) return -1;
        o->control.flags = hp_be32(b);
        o->control.depth = hp_be16(b + 4);
        return 0;
    case HP_HEAP_DUMP_END:
        return expect_len(r, 0, err);
    case HP_HEAP_DUMP:
    case HP_HEAP_DUMP_SEGMENT:
        return 0; /* bodies are walked with hp_heap_next() */
    default:
        return hp_fail(err, r->offset, "unknown record tag 0x%02x", r->tag);
    }
}

uint64_t hp_trace_frame(const hp_file *f, const hp_rec *t, uint32_t i)
{
    return hp_id(f, t->trace.frames + (uint64_t)i * f->id_size);
}

void hp_site_at(const hp_rec *s, uint32_t i, hp_site *o)
{
    const uint8_t *p = s->sites.sites + (uint64_t)i * HP_ALLOC_SITE_SIZE;
    o->array_type = p[0];
    o->class_serial = hp_be32(p + 1);
    o->trace = hp_be32(p + 5);
    o->live_bytes = hp_be32(p + 9);
    o->live_instances = hp_be32(p + 13);
    o->alloc_bytes = hp_be32(p + 17);
    o->alloc_instances = hp_be32(p + 21);
}

void hp_sample_at(const hp_rec *s, uint32_t i, uint32_t *count, uint32_t *trace)
{
    const uint8_t *p = s->samples.traces + (uint64_t)i * HP_CPU_SAMPLE_SIZE;
    *count = hp_be32(p);
    *trace = hp_be32(p + 4);
}
