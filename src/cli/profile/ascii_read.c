/*
 * Strict reader of ascii profiles (java.hprof.txt, and cpu=old's header-less
 * text). Every line must be one the agent writes; anything else is an error
 * naming the line. TRACE blocks are remembered by position and parsed into
 * a profile when a report row cites them.
 */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/profile/ascii_lines.h"
#include "cli/profile/load.h"
#include "format/hprof_format.h"

typedef struct {
    uint64_t line_at; /* offset of the first frame line in the text */
    uint32_t nframes, thread;
    uint64_t lineno;
} trace_pos;

typedef struct {
    hp_profile_set *set;
    hp_cursor c;
    const char *text;
    hp_idmap traces; /* serial -> index into trace_at */
    trace_pos *trace_at;
    size_t ntraces, traces_cap;
    hp_idmap names; /* thread serial -> offset << 16 | length of the name in the text */
    uint64_t stated[HP_PK_NKINDS][HP_PVALUES];
    uint32_t *frames; /* scratch for one stack */
    size_t frames_cap;
    int pending; /* c holds a line not consumed yet */
} areader;

static int next(areader *r)
{
    if (r->pending) {
        r->pending = 0;
        return 1;
    }
    return hp_cursor_next(&r->c);
}

static int fail(areader *r, hp_error *err, const char *what)
{
    return hp_cursor_fail(&r->c, err, what);
}

static time_t parse_ctime(const char *s, size_t n)
{
    char buf[64];
    struct tm tm = {0};
    if (n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *end = strptime(buf, "%a %b %d %H:%M:%S %Y", &tm);
    if (!end || *end) return 0;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    return t < 0 ? 0 : t;
}

/* Remembers the time of a report line "... ) <date>" as the profile's end. */
static void note_report_time(areader *r, const char *close_paren)
{
    const char *end = r->c.line + r->c.len;
    if (close_paren + 2 > end) return;
    time_t t = parse_ctime(close_paren + 2, (size_t)(end - close_paren - 2));
    for (int k = 0; k < HP_PK_NKINDS; k++) {
        hp_profile *p = &r->set->kinds[k];
        if (t && p->start_ms && (uint64_t)t * 1000 > p->start_ms)
            p->duration_ms = (uint64_t)t * 1000 - p->start_ms;
    }
}

static int grow_frames(areader *r, size_t need)
{
    if (need <= r->frames_cap) return 0;
    size_t cap = r->frames_cap ? r->frames_cap : 64;
    while (cap < need)
        cap *= 2;
    uint32_t *f = realloc(r->frames, cap * sizeof *f);
    if (!f) return -1;
    r->frames = f;
    r->frames_cap = cap;
    return 0;
}

static const char *find_last(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = n >= k ? n - k + 1 : 0; i-- > 0;)
        if (!memcmp(s + i, needle, k)) return s + i;
    return NULL;
}

/* THREAD START (obj=%x, id = %u, name="%s", group="%s") */
static int thread_start(areader *r, hp_error *err)
{
    const char *l = r->c.line, *end = l + r->c.len;
    const char *id = memmem(l, r->c.len, ", id = ", 7);
    const char *name = id ? memmem(id, (size_t)(end - id), ", name=\"", 8) : NULL;
    const char *group = name ? find_last(name, (size_t)(end - name), "\", group=\"") : NULL;
    uint64_t serial;
    if (!group || group < name + 7 || end - group < 12 || memcmp(end - 2, "\")", 2) ||
        hp_parse_u64(id + 7, (size_t)(name - id - 7), &serial) || serial > UINT32_MAX)
        return fail(r, err, "malformed THREAD START line");
    uint64_t at = (uint64_t)(name + 8 - r->text), len = (uint64_t)(group - name - 8);
    if (len >= 1u << 16) len = (1u << 16) - 1;
    if (hp_idmap_put(&r->names, serial, at << 16 | len) < 0) return fail(r, err, "out of memory");
    return 0;
}

/* TRACE %u:[ (thread=%u)][ (from %s phase of JVM)] followed by its frame lines */
static int trace_block(areader *r, hp_error *err)
{
    const char *l = r->c.line, *end = l + r->c.len, *colon = memchr(l, ':', r->c.len);
    uint64_t serial, thread = 0;
    if (!colon || hp_parse_u64(l + 6, (size_t)(colon - l - 6), &serial) || serial > UINT32_MAX)
        return fail(r, err, "malformed TRACE line");
    const char *p = colon + 1;
    if (end - p > 9 && !memcmp(p, " (thread=", 9)) {
        const char *close = memchr(p, ')', (size_t)(end - p));
        if (!close || hp_parse_u64(p + 9, (size_t)(close - p - 9), &thread) || thread > UINT32_MAX)
            return fail(r, err, "malformed thread in TRACE line");
        p = close + 1;
    }
    if (p != end &&
        !(end - p > 20 && !memcmp(p, " (from ", 7) && !memcmp(end - 14, " phase of JVM)", 14)))
        return fail(r, err, "malformed TRACE line");
    if (hp_idmap_get(&r->traces, serial)) return fail(r, err, "TRACE defined twice");
    trace_pos t = {(uint64_t)(r->c.p - r->text), 0, (uint32_t)thread, r->c.lineno};
    while (next(r)) {
        if (r->c.len == 0 || r->c.line[0] != '\t') {
            r->pending = 1;
            break;
        }
        if (hp_line_is(&r->c, "\t<empty>") && t.nframes == 0) {
            t.line_at = UINT64_MAX;
            break;
        }
        hp_pframe f;
        if (t.line_at == UINT64_MAX || hp_parse_frame(NULL, r->c.line + 1, r->c.len - 1, &f))
            return fail(r, err, "malformed frame line");
        t.nframes++;
    }
    if (t.nframes == 0 && t.line_at != UINT64_MAX) return fail(r, err, "TRACE without frames");
    if (r->ntraces == r->traces_cap) {
        size_t cap = r->traces_cap ? r->traces_cap * 2 : 256;
        trace_pos *v = realloc(r->trace_at, cap * sizeof *v);
        if (!v) return fail(r, err, "out of memory");
        r->trace_at = v;
        r->traces_cap = cap;
    }
    if (hp_idmap_put(&r->traces, serial, r->ntraces) < 0) return fail(r, err, "out of memory");
    r->trace_at[r->ntraces++] = t;
    return 0;
}

/* Frames of trace `serial` into r->frames after `skip` leading slots. */
static int trace_frames(areader *r, hp_profile *p, uint64_t serial, size_t skip, uint32_t *depth,
                        uint32_t *thread, hp_error *err)
{
    const uint64_t *i = hp_idmap_get(&r->traces, serial);
    if (!i) return fail(r, err, "row cites a TRACE not defined before it");
    const trace_pos *t = &r->trace_at[*i];
    if (grow_frames(r, skip + t->nframes + 1)) return fail(r, err, "out of memory");
    *thread = t->thread;
    *depth = (uint32_t)skip;
    if (t->line_at == UINT64_MAX) {
        r->frames[(*depth)++] = hp_profile_pseudo(p, "[empty trace]", HP_FK_UNWALKABLE);
        return r->frames[skip] == UINT32_MAX ? fail(r, err, "out of memory") : 0;
    }
    hp_cursor tc = {r->text + t->line_at, r->c.end, NULL, 0, t->lineno};
    for (uint32_t k = 0; k < t->nframes && hp_cursor_next(&tc); k++) {
        hp_pframe f;
        uint32_t id = UINT32_MAX;
        if (hp_parse_frame(p, tc.line + 1, tc.len - 1, &f) == 0) id = hp_profile_frame(p, &f);
        if (id == UINT32_MAX) return fail(r, err, "out of memory");
        r->frames[(*depth)++] = id;
    }
    return 0;
}

/* "<title> BEGIN (total = %d) <date>": the total, or -1 when negative (an int overflow). */
static int report_total(areader *r, size_t title_len, int64_t *total, hp_error *err)
{
    const char *l = r->c.line + title_len, *end = r->c.line + r->c.len;
    const char *close = memchr(l, ')', (size_t)(end - l));
    uint64_t v;
    int neg = end - l > 17 && l[16] == '-';
    if (!close || end - l < 17 || memcmp(l, " BEGIN (total = ", 16) ||
        hp_parse_u64(l + 16 + neg, (size_t)(close - l - 16 - neg), &v))
        return fail(r, err, "malformed report title");
    *total = neg ? -1 : (int64_t)v;
    note_report_time(r, close);
    return 0;
}

static uint64_t share_of(uint64_t hundredths, uint64_t total)
{
    return (uint64_t)((long double)hundredths * total / 10000.0L + 0.5L);
}

/* CPU SAMPLES / CPU TIME (ms) rows: rank self accum count trace method */
static int cpu_report(areader *r, int kind, hp_error *err)
{
    const char *title = kind == HP_PK_SAMPLES ? "CPU SAMPLES" : "CPU TIME (ms)";
    hp_profile *p = &r->set->kinds[kind];
    int64_t total = 0;
    if (report_total(r, strlen(title), &total, err)) return -1;
    r->set->present[kind] = 1;
    uint64_t *stated = r->stated[kind];
    if (total > 0) stated[kind == HP_PK_SAMPLES ? 0 : 1] += (uint64_t)total;
    uint64_t accum_before = 0;
    for (int first = 1;; first = 0) {
        if (!next(r)) return fail(r, err, "report without END");
        if (hp_line_is(&r->c, kind == HP_PK_SAMPLES ? "CPU SAMPLES END" : "CPU TIME (ms) END"))
            return 0;
        if (first && hp_line_is(&r->c, "rank   self  accum   count trace method")) continue;
        const char *f[6];
        size_t n[6];
        uint64_t rank, self, accum, count, trace;
        uint32_t depth, thread;
        if (hp_line_fields(&r->c, f, n, 6) != 6 || hp_parse_u64(f[0], n[0], &rank) ||
            hp_parse_percent(f[1], n[1], &self) || hp_parse_percent(f[2], n[2], &accum) ||
            hp_parse_u64(f[3], n[3], &count) || hp_parse_u64(f[4], n[4], &trace))
            return fail(r, err, "malformed CPU report row");
        if (trace_frames(r, p, trace, 0, &depth, &thread, err)) return -1;
        uint64_t v[HP_PVALUES] = {count};
        if (kind == HP_PK_TIMES && total > 0) {
            /* Rows give only rounded shares; differences of the running share
             * make the rows add up to the share they state in total. */
            uint64_t a = share_of(accum, (uint64_t)total),
                     b = share_of(accum_before, (uint64_t)total);
            v[1] = a > b ? a - b : 0;
            accum_before = accum > accum_before ? accum : accum_before;
        }
        if (hp_profile_add(p, r->frames, depth, thread, v)) return fail(r, err, "out of memory");
    }
}

/* SITES rows: rank self accum live-bytes live-objs alloc-bytes alloc-objs trace class */
static int sites_report(areader *r, hp_error *err)
{
    hp_profile *p = &r->set->kinds[HP_PK_SITES];
    uint64_t start = p->start_ms;
    hp_profile_free(p); /* SITES are cumulative: the last dump's are the profile */
    hp_profile_init(p, HP_PK_SITES, HP_PFMT_ASCII);
    p->start_ms = start;
    const char *close = memchr(r->c.line, ')', r->c.len);
    if (!close) return fail(r, err, "malformed SITES title");
    note_report_time(r, close);
    r->set->present[HP_PK_SITES] = 1;
    if (!next(r) ||
        !hp_line_is(&r->c, "          percent          live          alloc'ed  stack class") ||
        !next(r) ||
        !hp_line_is(&r->c, " rank   self  accum     bytes objs     bytes  objs trace name"))
        return fail(r, err, "malformed SITES column header");
    while (next(r)) {
        if (hp_line_is(&r->c, "SITES END")) return 0;
        const char *f[9];
        size_t n[9];
        uint64_t x[8];
        uint32_t depth, thread;
        if (hp_line_fields(&r->c, f, n, 9) != 9) return fail(r, err, "malformed SITES row");
        for (int i = 0; i < 8; i++)
            if (i == 1 || i == 2 ? hp_parse_percent(f[i], n[i], &x[i])
                                 : hp_parse_u64(f[i], n[i], &x[i]))
                return fail(r, err, "malformed SITES row");
        if (trace_frames(r, p, x[7], 1, &depth, &thread, err)) return -1;
        hp_pframe cls = {.func = hp_profile_string(p, f[8], n[8]), .kind = HP_FK_ALLOC};
        r->frames[0] = cls.func == UINT32_MAX ? UINT32_MAX : hp_profile_frame(p, &cls);
        uint64_t v[HP_PVALUES] = {x[6], x[5], x[4], x[3]};
        if (r->frames[0] == UINT32_MAX || hp_profile_add(p, r->frames, depth, thread, v))
            return fail(r, err, "out of memory");
    }
    return fail(r, err, "SITES without SITES END");
}

/* One method of a cpu=old row: "<unknown callee>" (or caller), or Class.method(sig)ret. */
static uint32_t old_method(hp_profile *p, const char *s, size_t n, const char *unknown)
{
    hp_pframe f;
    if (n == strlen(unknown) && !memcmp(s, unknown, n))
        return hp_profile_pseudo(p, unknown, HP_FK_UNWALKABLE);
    if (hp_parse_old_method(p, s, n, &f)) return UINT32_MAX - 1;
    return hp_profile_frame(p, &f);
}

/* "count callee caller time"; callee or caller may be "<unknown ...>" with a space. */
static int old_row(areader *r, hp_profile *p, hp_error *err)
{
    const char *l = r->c.line, *end = l + r->c.len;
    const char *sp1 = memchr(l, ' ', r->c.len), *sp3 = find_last(l, r->c.len, " ");
    uint64_t v[HP_PVALUES] = {0};
    if (!sp1 || sp3 <= sp1 || hp_parse_u64(l, (size_t)(sp1 - l), &v[0]) ||
        hp_parse_u64(sp3 + 1, (size_t)(end - sp3 - 1), &v[1]))
        return fail(r, err, "malformed cpu=old row");
    const char *callee = sp1 + 1, *caller;
    size_t unknown = strlen("<unknown callee>");
    if ((size_t)(sp3 - callee) > unknown && !memcmp(callee, "<unknown callee> ", unknown + 1))
        caller = callee + unknown + 1;
    else if ((caller = memchr(callee, ' ', (size_t)(sp3 - callee))) != NULL)
        caller++;
    if (!caller || caller >= sp3) return fail(r, err, "malformed cpu=old row");
    r->frames[0] = old_method(p, callee, (size_t)(caller - 1 - callee), "<unknown callee>");
    r->frames[1] = old_method(p, caller, (size_t)(sp3 - caller), "<unknown caller>");
    if (r->frames[0] == UINT32_MAX - 1 || r->frames[1] == UINT32_MAX - 1)
        return fail(r, err, "malformed method in cpu=old row");
    if (r->frames[0] == UINT32_MAX || r->frames[1] == UINT32_MAX ||
        hp_profile_add(p, r->frames, 2, 0, v))
        return fail(r, err, "out of memory");
    return 0;
}

/* cpu=old: "count callee caller time" rows, up to the first other line. */
static int old_report(areader *r, hp_error *err)
{
    hp_profile *p = &r->set->kinds[HP_PK_OLD];
    r->set->present[HP_PK_OLD] = 1;
    if (grow_frames(r, 2)) return fail(r, err, "out of memory");
    while (next(r)) {
        if (r->c.len == 0 || r->c.line[0] < '0' || r->c.line[0] > '9') {
            r->pending = 1;
            return 0;
        }
        if (old_row(r, p, err)) return -1;
    }
    return 0;
}

/* Sections this reader does not turn into profiles: skipped up to their END. */
static int skip_section(areader *r, const char *end_line, hp_error *err)
{
    while (next(r))
        if (hp_line_starts(&r->c, end_line)) return 0;
    return fail(r, err, "section without END");
}

static int header(areader *r, hp_error *err)
{
    if (!next(r)) return fail(r, err, "empty file");
    if (hp_line_is(&r->c, "count callee caller time")) { /* cpu=old writes no header */
        r->pending = 1;
        return 0;
    }
    static const char magic[] = HP_ASCII_HEADER;
    if (!hp_line_starts(&r->c, magic))
        return fail(r, err, "not an hprof profile (no \"JAVA PROFILE 1.0.1, created\" header)");
    time_t t = parse_ctime(r->c.line + sizeof magic - 1, r->c.len - (sizeof magic - 1));
    for (int k = 0; k < HP_PK_NKINDS; k++)
        r->set->kinds[k].start_ms = (uint64_t)t * 1000;
    while (next(r))
        if (hp_line_is(&r->c, "--------")) return 0;
    return fail(r, err, "no \"--------\" line after the header");
}

static int body_line(areader *r, hp_error *err)
{
    const hp_cursor *c = &r->c;
    if (c->len == 0 || hp_line_starts(c, "THREAD END (id = ") || hp_line_starts(c, "WAIT: ") ||
        hp_line_starts(c, "WAITED: "))
        return 0;
    if (hp_line_starts(c, "THREAD START (")) return thread_start(r, err);
    if (hp_line_starts(c, "TRACE ")) return trace_block(r, err);
    if (hp_line_starts(c, "CPU SAMPLES BEGIN")) return cpu_report(r, HP_PK_SAMPLES, err);
    if (hp_line_starts(c, "CPU TIME (ms) BEGIN")) return cpu_report(r, HP_PK_TIMES, err);
    if (hp_line_starts(c, "SITES BEGIN (")) return sites_report(r, err);
    if (hp_line_is(c, "count callee caller time")) return old_report(r, err);
    if (hp_line_starts(c, "HEAP DUMP BEGIN")) return skip_section(r, "HEAP DUMP END", err);
    if (hp_line_starts(c, "MONITOR DUMP BEGIN")) return skip_section(r, "MONITOR DUMP END", err);
    if (hp_line_starts(c, "MONITOR TIME BEGIN")) return skip_section(r, "MONITOR TIME END", err);
    return fail(r, err, "unexpected line");
}

/* Thread names into every profile, then the stated totals settled. */
static int finish(areader *r, hp_error *err)
{
    for (int k = 0; k < HP_PK_NKINDS; k++) {
        hp_profile *p = &r->set->kinds[k];
        for (size_t i = 0; i < r->names.cap; i++) {
            if (!r->names.used[i]) continue;
            uint64_t v = r->names.vals[i];
            uint32_t s = hp_profile_string(p, r->text + (v >> 16), v & 0xffff);
            if (s == UINT32_MAX || hp_idmap_put(&p->thread_names, r->names.keys[i], s) < 0)
                return hp_fail(err, 0, "out of memory");
        }
        if (hp_profile_settle(p, r->stated[k])) return hp_fail(err, 0, "out of memory");
    }
    return 0;
}

int hp_read_ascii(hp_profile_set *set, const char *buf, size_t len, hp_error *err)
{
    areader r = {.set = set, .c = {buf, buf + len, NULL, 0, 0}, .text = buf};
    int rc = header(&r, err);
    while (rc == 0 && next(&r))
        rc = body_line(&r, err);
    if (rc == 0) rc = finish(&r, err);
    hp_idmap_free(&r.traces);
    hp_idmap_free(&r.names);
    free(r.trace_at);
    free(r.frames);
    return rc;
}
