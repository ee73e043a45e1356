/* Command line of the profile commands: options, loading, output file. */
#include "cli/render/commands.h"

#include <stdlib.h>
#include <string.h>

#include "cli/commands/cli.h"
#include "cli/profile/load.h"
#include "cli/render/merge.h"
#include "cli/render/render.h"

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

/* What one command writes: a renderer with its inputs. */
typedef struct {
    const popts *o;
    render_fn single;
    const hp_profile *p[2]; /* p[1] alone for one input */
    const hp_file *heaps;   /* two heap dumps */
    const hp_profile_set *merged;
} job;

static int run_job(FILE *out, const job *j, hp_error *e)
{
    const popts *o = j->o;
    const char *names[2] = {o->inputs[0], o->inputs[1]};
    if (j->single) return j->single(out, j->p[1], &o->r, e);
    if (j->merged)
        return j->merged->format == HP_PFMT_BINARY ? hp_write_binary(out, j->merged, e)
                                                   : hp_write_ascii(out, j->merged, e);
    if (j->heaps) return hp_render_heap_diff(out, &j->heaps[0], &j->heaps[1], o->json, e);
    if (o->diff) return hp_render_flame_diff(out, j->p[0], j->p[1], &o->r, e);
    return hp_render_diff(out, j->p[0], j->p[1], &o->r, names, o->json, e);
}

/* Writes to -o FILE (replaced only when the whole output was written) or stdout. */
static int write_output(const job *j)
{
    char tmp[4096];
    const popts *o = j->o;
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
    int rc = run_job(out, j, &e);
    int werr = ferror(out);
    if (o->output)
        werr |= fclose(out);
    else
        werr |= fflush(out);
    if (rc) fprintf(stderr, "hprof: error: %s: %s\n", o->inputs[o->ninputs - 1], e.what);
    if (!rc && werr)
        fprintf(stderr, "hprof: error: %s: write failed\n", o->output ? tmp : "stdout");
    if (o->output && (rc || werr || rename(tmp, o->output))) {
        remove(tmp);
        return rc ? HP_EXIT_MALFORMED : HP_EXIT_IO;
    }
    return rc ? HP_EXIT_MALFORMED : werr ? HP_EXIT_IO : HP_EXIT_OK;
}

/* --value for p, and --threads only where traces have threads. */
static int check_selection(popts *o, const hp_profile *p, const char *path)
{
    if ((o->r.value = value_index(o, p, path)) < 0) return HP_EXIT_USAGE;
    if (o->r.threads && !p->per_thread) {
        fprintf(stderr, "hprof: error: %s: --threads needs traces per thread (thread=y)\n", path);
        return HP_EXIT_NODATA;
    }
    return HP_EXIT_OK;
}

static int run_single(popts *o, render_fn fn)
{
    if (o->ninputs != 1) return usage_error(o->cmd, "takes exactly one input file");
    hp_profile_set set;
    job j = {.o = o, .single = fn};
    int rc = load(o, o->inputs[0], &set, (hp_profile **)&j.p[1]);
    if (rc) return rc;
    o->r.source = o->inputs[0];
    if (!o->r.title) o->r.title = o->inputs[0];
    rc = check_selection(o, j.p[1], o->inputs[0]);
    if (rc == HP_EXIT_OK) rc = write_output(&j);
    hp_profile_set_free(&set);
    return rc;
}

/* Both inputs of diff or flame --diff as profiles of one kind: A's (or --kind). */
static int run_pair(popts *o)
{
    hp_profile_set sets[2];
    job j = {.o = o};
    int rc = load(o, o->inputs[0], &sets[0], (hp_profile **)&j.p[0]);
    if (rc) return rc;
    int kind = o->kind;
    o->kind = j.p[0]->kind;
    rc = load(o, o->inputs[1], &sets[1], (hp_profile **)&j.p[1]);
    o->kind = kind;
    if (rc) {
        hp_profile_set_free(&sets[0]);
        return rc;
    }
    o->r.source = o->inputs[1];
    o->r.baseline = o->inputs[0];
    if (!o->r.title) o->r.title = o->inputs[1];
    rc = check_selection(o, j.p[1], o->inputs[1]);
    if (rc == HP_EXIT_OK) rc = write_output(&j);
    hp_profile_set_free(&sets[0]);
    hp_profile_set_free(&sets[1]);
    return rc;
}

/* diff of two heap dumps when both files are; -1 when they are not. */
static int heap_diff(const popts *o)
{
    hp_file f[2];
    hp_error e = {0};
    int opened = 0, rc = -1;
    while (opened < 2 && hp_open(&f[opened], o->inputs[opened], &e) == 0)
        opened++;
    if (opened == 2 && hp_is_heap_dump_file(&f[0]) && hp_is_heap_dump_file(&f[1])) {
        job j = {.o = o, .heaps = f};
        rc = write_output(&j);
    }
    for (int i = 0; i < opened; i++)
        hp_close(&f[i]);
    return rc;
}

static int run_diff(popts *o)
{
    if (o->ninputs != 2) return usage_error(o->cmd, "--diff and diff take two files, A and B");
    int rc = o->diff ? -1 : heap_diff(o);
    return rc >= 0 ? rc : run_pair(o);
}

static int run_merge(popts *o)
{
    hp_profile_set *in = calloc((size_t)o->ninputs + 1, sizeof *in), merged;
    hp_error e = {0};
    int loaded = 0, rc = in ? HP_EXIT_OK : HP_EXIT_IO;
    if (o->ninputs < 1) rc = usage_error(o->cmd, "needs input files");
    for (; rc == HP_EXIT_OK && loaded < o->ninputs; loaded++) {
        int r = hp_profile_load(&in[loaded], o->inputs[loaded], HP_WANT_ALL, &e);
        if (r) {
            fprintf(stderr, "hprof: error: %s: %s\n", o->inputs[loaded], e.what);
            rc = r == -2 ? HP_EXIT_IO : HP_EXIT_MALFORMED;
        }
    }
    if (rc == HP_EXIT_OK && hp_merge(&merged, in, o->ninputs, o->inputs, &e) != 0) {
        fprintf(stderr, "hprof: error: %s\n", e.what);
        rc = HP_EXIT_USAGE;
        hp_profile_set_free(&merged);
    } else if (rc == HP_EXIT_OK) {
        job j = {.o = o, .merged = &merged};
        rc = write_output(&j);
        hp_profile_set_free(&merged);
    }
    for (int i = 0; i < loaded; i++) /* a failed load leaves its set empty */
        hp_profile_set_free(&in[i]);
    free(in);
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
    if (!strcmp(o.cmd, "flame") || !strcmp(o.cmd, "diff")) return run_diff(&o);
    if (!strcmp(o.cmd, "merge")) return run_merge(&o);
    return usage_error("command not available:", o.cmd);
}
