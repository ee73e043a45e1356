/* Command line of the profile commands: options, loading, output file. */
#include "render/commands.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/load.h"
#include "render/render.h"

typedef struct {
    const char *cmd;
    const char *inputs[64];
    int ninputs;
    const char *output; /* -o, NULL = stdout */
    int kind;           /* -1: the first the file has */
    const char *value;
    int json, diff;
    hp_render_opts r;
} popts;

static const char *const kind_names[HP_PK_NKINDS] = {"samples", "times", "old", "sites"};

int hp_is_profile_command(const char *name)
{
    static const char *const names[] = {"collapsed", "pprof", "flame", "diff", "merge"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) return 1;
    return 0;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "hprof: %s%s%s\nTry 'hprof --help'.\n", what, arg ? " " : "", arg ? arg : "");
    return HP_EXIT_USAGE;
}

static int parse_value_option(popts *o, const char *opt, const char *arg)
{
    char *end;
    if (!strcmp(opt, "-o")) {
        o->output = arg;
    } else if (!strcmp(opt, "--kind")) {
        for (o->kind = 0; o->kind < HP_PK_NKINDS; o->kind++)
            if (!strcmp(arg, kind_names[o->kind])) return 0;
        return usage_error("--kind must be samples, times, old or sites, not", arg);
    } else if (!strcmp(opt, "--value")) {
        o->value = arg;
    } else if (!strcmp(opt, "--title")) {
        o->r.title = arg;
    } else if (!strcmp(opt, "--minwidth")) {
        o->r.minwidth = strtod(arg, &end);
        if (*end || end == arg || !(o->r.minwidth >= 0 && o->r.minwidth <= 100))
            return usage_error("--minwidth needs a percentage 0..100, got", arg);
    } else if (!strcmp(opt, "--interval")) {
        o->r.interval_ms = strtol(arg, &end, 10);
        if (*end || end == arg || o->r.interval_ms <= 0)
            return usage_error("--interval needs milliseconds > 0, got", arg);
    } else {
        return -1;
    }
    return 0;
}

static int parse(popts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->cmd = argv[1];
    o->kind = -1;
    o->r.minwidth = 0.1;
    o->r.interval_ms = 10;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (!strcmp(a, "--threads")) {
            o->r.threads = 1;
        } else if (!strcmp(a, "--inverted")) {
            o->r.inverted = 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--diff")) {
            o->diff = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            if (i + 1 == argc) return usage_error("missing value after", a);
            if ((rc = parse_value_option(o, a, argv[++i])) != 0)
                return rc < 0 ? usage_error("unknown option", a) : rc;
        } else if (o->ninputs == (int)(sizeof o->inputs / sizeof o->inputs[0])) {
            return usage_error("too many input files", NULL);
        } else {
            o->inputs[o->ninputs++] = a;
        }
    }
    return 0;
}

/* Loads one input and picks the profile of the asked kind. Returns an exit status. */
static int load(const popts *o, const char *path, hp_profile_set *set, hp_profile **out)
{
    hp_error e = {0};
    int rc = hp_profile_load(set, path, o->kind, &e);
    if (rc) {
        fprintf(stderr, "hprof: error: %s: %s\n", path, e.what);
        return rc == -2 ? HP_EXIT_IO : HP_EXIT_MALFORMED;
    }
    int kind = o->kind;
    for (int k = 0; kind < 0 && k < HP_PK_NKINDS; k++)
        if (set->present[k]) kind = k;
    if (kind < 0 || !set->present[kind]) {
        fprintf(stderr, "hprof: error: %s: no %s data in the file\n", path,
                kind < 0 ? "CPU or SITES" : hp_pkind_name(kind));
        hp_profile_set_free(set);
        return HP_EXIT_NODATA;
    }
    *out = &set->kinds[kind];
    return HP_EXIT_OK;
}

/* The index of --value for p's kind (default: time for CPU TIME, allocated
 * bytes for SITES, the first value otherwise). */
static int value_index(const popts *o, const hp_profile *p, const char *path)
{
    if (!o->value) return p->kind == HP_PK_TIMES || p->kind == HP_PK_SITES ? 1 : 0;
    int v = hp_pkind_value_index(p->kind, o->value);
    if (v < 0)
        fprintf(stderr, "hprof: error: %s: %s has no value '%s'\n", path, hp_pkind_name(p->kind),
                o->value);
    return v;
}

typedef int (*render_fn)(FILE *, const hp_profile *, const hp_render_opts *, hp_error *);

/* Writes to -o FILE (replaced only when the whole output was written) or stdout. */
static int write_output(const popts *o, render_fn fn, const hp_profile *p)
{
    char tmp[4096];
    FILE *out = stdout;
    if (o->output) {
        if (snprintf(tmp, sizeof tmp, "%s.tmp", o->output) >= (int)sizeof tmp)
            return usage_error("output file name too long:", o->output);
        if (!(out = fopen(tmp, "wb"))) {
            fprintf(stderr, "hprof: error: %s: cannot create\n", tmp);
            return HP_EXIT_IO;
        }
    }
    hp_error e = {0};
    int rc = fn(out, p, &o->r, &e);
    int werr = ferror(out);
    if (o->output)
        werr |= fclose(out);
    else
        werr |= fflush(out);
    if (rc) fprintf(stderr, "hprof: error: %s: %s\n", o->inputs[0], e.what);
    if (!rc && werr)
        fprintf(stderr, "hprof: error: %s: write failed\n", o->output ? tmp : "stdout");
    if (o->output && (rc || werr || rename(tmp, o->output))) {
        remove(tmp);
        return rc ? HP_EXIT_MALFORMED : HP_EXIT_IO;
    }
    return rc ? HP_EXIT_MALFORMED : werr ? HP_EXIT_IO : HP_EXIT_OK;
}

static int run_single(popts *o, render_fn fn)
{
    if (o->ninputs != 1) return usage_error(o->cmd, "takes exactly one input file");
    hp_profile_set set;
    hp_profile *p;
    int rc = load(o, o->inputs[0], &set, &p);
    if (rc) return rc;
    o->r.source = o->inputs[0];
    if (!o->r.title) o->r.title = o->inputs[0];
    o->r.value = value_index(o, p, o->inputs[0]);
    if (o->r.value < 0) {
        rc = HP_EXIT_USAGE;
    } else if (o->r.threads && !p->per_thread) {
        fprintf(stderr, "hprof: error: %s: --threads needs traces per thread (thread=y)\n",
                o->inputs[0]);
        rc = HP_EXIT_NODATA;
    } else {
        rc = write_output(o, fn, p);
    }
    hp_profile_set_free(&set);
    return rc;
}

int hp_profile_main(int argc, char **argv)
{
    popts o;
    int rc = parse(&o, argc, argv);
    if (rc) return rc;
    if (!strcmp(o.cmd, "collapsed")) return run_single(&o, hp_render_collapsed);
    if (!strcmp(o.cmd, "pprof")) return run_single(&o, hp_render_pprof);
    if (!strcmp(o.cmd, "flame") && !o.diff) return run_single(&o, hp_render_flame);
    return usage_error("command not available:", o.cmd);
}
