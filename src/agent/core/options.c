#include "agent/core/options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The original read names into a 16-byte buffer; longer names were a syntax error. */
#define NAME_MAX_LEN 15

struct parser {
    const char *p;
    struct hp_options *o;
    char *err;
    size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Copies the text up to the next `stop` character (or the end) and advances
 * past the value; returns NULL for an empty value. */
static char *take_value(struct parser *ps, char stop)
{
    const char *end = strchr(ps->p, stop);
    size_t n = end ? (size_t)(end - ps->p) : strlen(ps->p);
    if (n == 0) return NULL;
    char *v = strndup(ps->p, n);
    ps->p += n;
    if (*ps->p == stop) ps->p++;
    return v;
}

static bool whole_long(const char *v, int base, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, base);
    if (end == v || *end != '\0' || errno != 0) return false;
    *out = x;
    return true;
}

static int parse_yn(struct parser *ps, const char *name, bool *out)
{
    char *v = take_value(ps, ',');
    int rc = 0;
    if (v && strcmp(v, "y") == 0)
        *out = true;
    else if (v && strcmp(v, "n") == 0)
        *out = false;
    else
        rc = fail(ps, "%s option value must be y|n", name);
    free(v);
    return rc;
}

static int parse_int(struct parser *ps, const char *name, int min, int max, int *out)
{
    char *v = take_value(ps, ',');
    long x;
    int rc = 0;
    if (v == NULL)
        rc = fail(ps, "syntax error parsing %s=DECIMAL", name);
    else if (!whole_long(v, 10, &x) || x < min || x > 0x7fffffff)
        rc = fail(ps, "%s option value must be decimal and %s", name, min ? "> 0" : ">= 0");
    else if (x > max)
        rc = fail(ps, "%s option value must be at most %d", name, max);
    else
        *out = (int)x;
    free(v);
    return rc;
}

/* logflags, debugflags and X took any C integer literal (strtol base 0). */
static int parse_flags(struct parser *ps, const char *name, long *out)
{
    char *v = take_value(ps, ',');
    char *end = v;
    long x = v ? strtol(v, &end, 0) : 0;
    int rc = 0;
    if (v == NULL || end == v)
        rc = fail(ps, "%s option value must be numeric", name);
    else if (out)
        *out = x;
    free(v);
    return rc;
}

static int parse_file(struct parser *ps, bool *seen_output)
{
    if (*seen_output) return fail(ps, "file or net options should only appear once");
    *seen_output = true;
    char *v = take_value(ps, ',');
    if (v == NULL) return fail(ps, "syntax error parsing file=filename");
    ps->o->file = v;
    return 0;
}

/* net=host:port, and net=[v6addr]:port for IPv6 literals. */
static int parse_net(struct parser *ps, bool *seen_output)
{
    if (*seen_output) return fail(ps, "file or net options should only appear once");
    *seen_output = true;
    char *host;
    if (*ps->p == '[') {
        const char *close = strchr(ps->p, ']');
        if (close == NULL || close[1] != ':') return fail(ps, "net option missing ':'");
        host = strndup(ps->p + 1, (size_t)(close - ps->p - 1));
        ps->p = close + 2;
    } else {
        const char *colon = strchr(ps->p, ':');
        const char *comma = strchr(ps->p, ',');
        if (colon == NULL || (comma && comma < colon)) return fail(ps, "net option missing ':'");
        host = strndup(ps->p, (size_t)(colon - ps->p));
        ps->p = colon + 1;
    }
    ps->o->net_host = host;
    char *port = take_value(ps, ',');
    long x;
    int rc = 0;
    if (port == NULL)
        rc = fail(ps, "net option missing port");
    else if (!whole_long(port, 10, &x) || x <= 0 || x > 65535)
        rc = fail(ps, "net option port must be decimal 1..65535");
    else
        ps->o->net_port = (int)x;
    free(port);
    return rc;
}

static int parse_choice(struct parser *ps, const char *syntax, const char *values,
                        const char *const *choices, int *index)
{
    char *v = take_value(ps, ',');
    int rc = -1;
    if (v == NULL) {
        fail(ps, "syntax error parsing %s", syntax);
    } else {
        for (int i = 0; choices[i]; i++)
            if (strcmp(v, choices[i]) == 0) {
                *index = i;
                rc = 0;
            }
        if (rc) fail(ps, "%s option value must be %s", values, strchr(syntax, '=') + 1);
    }
    free(v);
    return rc;
}

static int parse_cutoff(struct parser *ps)
{
    char *v = take_value(ps, ',');
    int rc = 0;
    if (v == NULL) {
        rc = fail(ps, "syntax error parsing cutoff=DOUBLE");
    } else {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end != '\0' || !(x >= 0.0))
            rc = fail(ps, "cutoff option value must be floating point and >= 0");
        else
            ps->o->cutoff = x;
    }
    free(v);
    return rc;
}

static int parse_alloc_interval(struct parser *ps)
{
    char *v = take_value(ps, ',');
    char *end = v;
    errno = 0;
    unsigned long long x = v && *v != '-' ? strtoull(v, &end, 10) : 0;
    int rc = 0;
    if (v == NULL)
        rc = fail(ps, "syntax error parsing alloc_interval=DECIMAL");
    else if (end == v || *end != '\0' || errno != 0 || x > 0x7fffffff)
        rc = fail(ps, "alloc_interval option value must be decimal bytes in 0..2147483647");
    else
        ps->o->alloc_interval = x;
    free(v);
    return rc;
}

struct flag_option {
    const char *name;
    size_t offset;
};

#define FLAG(n)                                                                                    \
    {                                                                                              \
#n, offsetof(struct hp_options, n)                                                         \
    }
static const struct flag_option yn_options[] = {
    FLAG(lineno),   FLAG(thread),     FLAG(doe),        FLAG(msa),     FLAG(force),
    FLAG(verbose),  FLAG(primfields), FLAG(primarrays), FLAG(monitor), {"gc_okay", 0},
    FLAG(coredump), FLAG(errorexit),  FLAG(pause),      FLAG(debug),   FLAG(javaonly),
};
#undef FLAG

static int parse_one(struct parser *ps, const char *name, bool *seen_output, bool *mode_given)
{
    static const char *const formats[] = {"a", "b", NULL};
    static const char *const cpus[] = {"y", "samples", "times", "old", NULL};
    static const char *const heaps[] = {"dump", "sites", "all", NULL};
    struct hp_options *o = ps->o;
    int i = 0;

    if (strcmp(name, "file") == 0) return parse_file(ps, seen_output);
    if (strcmp(name, "net") == 0) return parse_net(ps, seen_output);
    if (strcmp(name, "format") == 0) {
        if (parse_choice(ps, "format=a|b", "format", formats, &i)) return -1;
        o->format = i ? HP_FORMAT_BINARY : HP_FORMAT_ASCII;
        return 0;
    }
    if (strcmp(name, "depth") == 0) return parse_int(ps, "depth", 0, HP_MAX_DEPTH, &o->depth);
    if (strcmp(name, "interval") == 0)
        return parse_int(ps, "interval", 1, 0x7fffffff, &o->interval_ms);
    if (strcmp(name, "cutoff") == 0) return parse_cutoff(ps);
    if (strcmp(name, "cpu") == 0) {
        if (parse_choice(ps, "cpu=y|samples|times|old", "cpu", cpus, &i)) return -1;
        *mode_given = true;
        if (i <= 1) o->cpu_samples = true;
        if (i >= 2) o->cpu_times = true;
        if (i == 3) o->cpu_old = true;
        return 0;
    }
    if (strcmp(name, "heap") == 0) {
        if (parse_choice(ps, "heap=dump|sites|all", "heap", heaps, &i)) return -1;
        *mode_given = true;
        if (i != 1) o->heap_dump = true;
        if (i != 0) o->heap_sites = true;
        return 0;
    }
    if (strcmp(name, "logflags") == 0) return parse_flags(ps, name, &o->logflags);
    if (strcmp(name, "debugflags") == 0) return parse_flags(ps, name, &o->debugflags);
    if (strcmp(name, "X") == 0) return parse_flags(ps, name, NULL);
    if (strcmp(name, "alloc_interval") == 0) return parse_alloc_interval(ps);
    if (strcmp(name, "exitpause") == 0)
        return fail(ps, "The exitpause option was removed, use -XX:OnError='cmd %%%%p'");
    if (strcmp(name, "precrash") == 0)
        return fail(ps, "The precrash option was removed, use -XX:OnError='precrash -p %%%%p'");
    for (size_t k = 0; k < sizeof yn_options / sizeof yn_options[0]; k++) {
        if (strcmp(name, yn_options[k].name) != 0) continue;
        bool value = false,
             *dst = yn_options[k].offset ? (bool *)((char *)o + yn_options[k].offset) : &value;
        if (parse_yn(ps, name, dst)) return -1;
        if (dst == &o->monitor && o->monitor) *mode_given = true;
        return 0;
    }
    return fail(ps, "Unknown option: %s", name);
}

static void set_defaults(struct hp_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = HP_FORMAT_ASCII;
    o->depth = 4;
    o->interval_ms = 10;
    o->cutoff = 0.0001;
    o->lineno = o->doe = o->force = o->verbose = true;
    o->primfields = o->primarrays = true;
}

int hp_options_parse(const char *text, struct hp_options *o, char *err, size_t errlen)
{
    struct parser ps = {text ? text : "", o, err, errlen};
    bool seen_output = false, mode_given = false;
    set_defaults(o);
    if (strcmp(ps.p, "help") == 0) {
        o->help = true;
        return 0;
    }
    while (*ps.p) {
        const char *eq = strchr(ps.p, '=');
        size_t n = eq ? (size_t)(eq - ps.p) : strlen(ps.p);
        if (n > NAME_MAX_LEN) {
            fail(&ps, "general syntax error parsing options");
            goto bad;
        }
        char name[NAME_MAX_LEN + 1];
        memcpy(name, ps.p, n);
        name[n] = '\0';
        /* A name without '=' is parsed with an empty value, which gives that
         * option's own syntax error, as in the original. */
        ps.p += n + (eq ? 1 : 0);
        if (parse_one(&ps, name, &seen_output, &mode_given)) goto bad;
    }
    if (o->format == HP_FORMAT_BINARY && o->cpu_times) {
        fail(&ps, "cpu=times|old is not supported with format=b");
        goto bad;
    }
    if (o->format == HP_FORMAT_BINARY && o->monitor) {
        fail(&ps, "monitor=y is not supported with format=b");
        goto bad;
    }
    if (!mode_given) o->heap_dump = o->heap_sites = true;
    return 0;
bad:
    hp_options_free(o);
    return -1;
}

void hp_options_free(struct hp_options *o)
{
    free(o->file);
    free(o->net_host);
    o->file = o->net_host = NULL;
}
