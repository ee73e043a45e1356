/* hprof: command-line front end for binary HPROF files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands/cli.h"
#include "cli/record/record.h"
#include "cli/render/commands.h"

typedef int (*cmd_fn)(const hp_file *, const hp_opts *, FILE *, FILE *);

static const struct {
    const char *name;
    cmd_fn fn;
} commands[] = {
    {"verify", hp_cmd_verify},     {"records", hp_cmd_records}, {"summary", hp_cmd_summary},
    {"histo", hp_cmd_histo},       {"sites", hp_cmd_sites},     {"samples", hp_cmd_samples},
    {"threads", hp_cmd_threads},   {"text", hp_cmd_text},       {"dominators", hp_cmd_dominators},
    {"path", hp_cmd_path},         {"serve", hp_cmd_serve},     {"waste", hp_cmd_waste},
    {"suspects", hp_cmd_suspects},
};

static const char usage[] =
    "usage: hprof <command> [options] FILE\n"
    "\n"
    "Reads binary HPROF files (JAVA PROFILE 1.0.1/1.0.2, ID size 4 or 8): the\n"
    "hprof agent's format=b output and JVM heap dumps (jcmd GC.heap_dump).\n"
    "\n"
    "commands:\n"
    "  verify FILE     check structure, record lengths, heap sub-records against\n"
    "                  CLASS DUMP layouts and that referenced IDs exist; one-line\n"
    "                  summary on success, one line per problem on failure\n"
    "      --max-errors N  print at most N problems (default 20, -1 all)\n"
    "      --shallow       skip per-object reference checks (less memory)\n"
    "      --strict        references to objects missing from their heap dump\n"
    "                      are errors (default: warnings, counted in the summary;\n"
    "                      JVM dumps have some)\n"
    "  records FILE    one line per record: offset, tag, time, length, key fields\n"
    "      --heap          also list heap dump sub-records\n"
    "  summary FILE    header, record counts, threads, per-dump object totals\n"
    "  histo FILE      class histogram of a heap dump, sorted by shallow bytes\n"
    "      --dump N        heap dump to use (1-based; default: the last)\n"
    "      --top N         print only the N largest rows (0: all)\n"
    "      --retained      add retained sizes (sorts by them)\n"
    "  dominators FILE dominator tree from the GC roots, largest retained first\n"
    "      --top N         children per node (default 20, 0: all)\n"
    "      --depth D       tree levels (default 1, at most 64)\n"
    "  path FILE OBJECT|CLASS  shortest paths from GC roots to an object (0x ID)\n"
    "                  or to a class's largest instances (--top N, default 3)\n"
    "      --exclude-weak  do not follow weak/soft/phantom/finalizer referents\n"
    "  waste FILE      duplicate strings, empty and sparse collections and arrays,\n"
    "                  boxed primitives: bytes to gain, each with a sample path\n"
    "      --top N         duplicate strings listed (default 10)\n"
    "  suspects FILE   objects and classes retaining 10%+ of the heap: what they\n"
    "                  dominate and their paths (--top N, default 5)\n"
    "  serve FILE      local web UI: overview, histogram, classes, objects,\n"
    "                  dominator tree, paths; runs until interrupted\n"
    "      --port N        TCP port (default 0: any free one, printed)\n"
    "      --bind ADDR     address to listen on (default 127.0.0.1)\n"
    "  sites FILE      last ALLOC SITES record as ascii SITES, with its TRACEs\n"
    "  samples FILE    last CPU SAMPLES record as ascii CPU SAMPLES, with TRACEs\n"
    "  threads FILE    THREAD START/END records; threads of heap dumps\n"
    "  text FILE       the whole file in the ascii (java.hprof.txt) form\n"
    "      --dump N        only heap dump N in the HEAP DUMP sections\n"
    "\n"
    "profile commands (CPU SAMPLES, CPU TIME, cpu=old, SITES; ascii or binary):\n"
    "  collapsed FILE  folded stacks, one line \"root;...;leaf count\" each\n"
    "  pprof FILE      gzipped pprof profile.proto (--interval MS: cpu=samples'\n"
    "                  interval, default 10)\n"
    "  flame FILE      flame graph, one self-contained HTML page (--title T,\n"
    "                  --minwidth PCT: leave out frames below it, default 0.1)\n"
    "  flame --diff A B  differential flame graph, widths from B\n"
    "  diff A B        what changed by method and stack, as shares of each total\n"
    "                  (two heap dumps: their class histograms' difference)\n"
    "  merge A B ...   one profile of every input's data, counts summed, in the\n"
    "                  first input's format (inputs of different kinds: refused)\n"
    "      --kind K        samples, times, old or sites (default: the first found)\n"
    "      --value V       samples; calls, time; alloc-objects, alloc-bytes,\n"
    "                      live-objects, live-bytes\n"
    "      --threads       one tree per thread (files written with thread=y)\n"
    "      -o FILE         write FILE instead of stdout\n"
    "\n"
    "record (attach to a running JVM; exit 5-8 say what failed, see its --help):\n"
    "  record PID [-d DURATION] [-o FILE] [--flame] [AGENT-OPTIONS]\n"
    "  record --list   running JVMs of this user: pid, JDK version, main class\n"
    "\n"
    "  -o FILE         every command but serve and record: write FILE instead of stdout\n"
    "                  (replaced only when the command succeeds)\n"
    "  --json          heap analyses (dominators ... suspects), diff: JSON output\n"
    "  --no-index      heap analyses: neither use nor write FILE.index (the saved\n"
    "                  graph and dominators that make the next open fast)\n"
    "  --model M       shallow-size model for histo, summary and text:\n"
    "                  coops (default; 12-byte header, 4-byte references),\n"
    "                  wide (16-byte header, 8-byte references), compact\n"
    "                  (-XX:+UseCompactObjectHeaders: 8-byte header, 4-byte\n"
    "                  references) or raw (HPROF payload bytes only)\n"
    "\n"
    "exit status: 0 ok; 1 malformed file (verify failed); 2 usage error;\n"
    "3 file cannot be opened; 4 the file lacks the requested data\n"
    "errors: \"hprof: error: <file>: <what> at offset <n>\" on stderr\n";

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "hprof: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'hprof --help'.\n");
    return HP_EXIT_USAGE;
}

static int number(const char *s, long *out)
{
    char *end;
    *out = strtol(s, &end, 10);
    return *s != '\0' && *end == '\0';
}

/* Options that take a value: numbers, except --model and --bind. */
static int takes_value(const char *a)
{
    static const char *const names[] = {"--dump",  "--top",  "--max-errors", "--model",
                                        "--depth", "--port", "--bind",       "-o"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i])) return 1;
    return 0;
}

static int numeric_option(hp_opts *o, const char *a, const char *value)
{
    long n;
    if (!number(value, &n)) return bad_usage("option needs a number, got '%s'", value);
    if (!strcmp(a, "--dump") && n >= 1)
        o->dump = n;
    else if (!strcmp(a, "--top") && n >= 0)
        o->top = n;
    else if (!strcmp(a, "--max-errors") && n >= -1)
        o->max_errors = n;
    else if (!strcmp(a, "--depth") && n >= 1 && n <= 64)
        o->depth = n;
    else if (!strcmp(a, "--port") && n >= 0 && n <= 65535)
        o->port = n;
    else
        return bad_usage("value out of range: %s", value);
    return HP_EXIT_OK;
}

static int flag(hp_opts *o, const char *a)
{
    int *const fields[] = {&o->heap,     &o->shallow,      &o->strict,  &o->json,
                           &o->retained, &o->exclude_weak, &o->no_index};
    static const char *const names[] = {"--heap",     "--shallow",      "--strict",  "--json",
                                        "--retained", "--exclude-weak", "--no-index"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i])) return *fields[i] = 1;
    return 0;
}

/* Fills o and *path from argv[2..]; `path` takes a second operand, the target. */
static int parse_args(int argc, char **argv, hp_opts *o, const char **path)
{
    int operands = !strcmp(argv[1], "path") ? 2 : 1, seen = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (takes_value(a) && i + 1 == argc) return bad_usage("option %s needs a value", a);
        if (flag(o, a)) continue;
        if (!strcmp(a, "--model")) {
            if (!(o->model = hp_model_find(argv[++i])))
                return bad_usage("unknown size model '%s'", argv[i]);
        } else if (!strcmp(a, "--bind")) {
            o->bind = argv[++i];
        } else if (!strcmp(a, "-o")) {
            o->output = argv[++i];
        } else if (takes_value(a)) {
            int rc = numeric_option(o, a, argv[++i]);
            if (rc != HP_EXIT_OK) return rc;
        } else if (a[0] == '-' && a[1] != '\0') {
            return bad_usage("unknown option '%s'", a);
        } else if (seen == operands) {
            return bad_usage("unexpected argument '%s'", a);
        } else if (seen++ == 0) {
            *path = a;
        } else {
            o->target = a;
        }
    }
    if (!*path) return bad_usage("%s", "missing FILE");
    if (o->output && !strcmp(argv[1], "serve")) return bad_usage("%s", "serve takes no -o");
    if (seen < operands) return bad_usage("%s", "missing OBJECT or CLASS");
    return HP_EXIT_OK;
}

/* Runs the command into stdout, or into -o FILE: written as FILE.tmp, renamed
 * only when the command succeeded and everything was written. */
static int run(cmd_fn fn, const hp_file *f, const hp_opts *o)
{
    char tmp[4200];
    FILE *out = stdout;
    if (o->output) {
        if (snprintf(tmp, sizeof tmp, "%s.tmp", o->output) >= (int)sizeof tmp)
            return bad_usage("output file name too long: %s", o->output);
        if (!(out = fopen(tmp, "wb"))) {
            fprintf(stderr, "hprof: error: %s: cannot create: %s\n", tmp, strerror(errno));
            return HP_EXIT_IO;
        }
    }
    int rc = fn(f, o, out, stderr);
    int failed = ferror(out); /* before fclose: '|' would not order the two calls */
    if (o->output)
        failed |= fclose(out);
    else
        failed |= fflush(out);
    if (failed && rc == HP_EXIT_OK) {
        fprintf(stderr, "hprof: error: %s: write failed\n", o->output ? tmp : "stdout");
        rc = HP_EXIT_IO;
    }
    if (o->output && (rc != HP_EXIT_OK || rename(tmp, o->output) != 0)) {
        remove(tmp);
        if (rc == HP_EXIT_OK) rc = HP_EXIT_IO;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) return bad_usage("%s", "missing command");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, stdout);
        return HP_EXIT_OK;
    }
    if (hp_is_profile_command(argv[1])) return hp_profile_main(argc, argv);
    if (!strcmp(argv[1], "record")) return hp_record_main(argc, argv);
    cmd_fn fn = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) fn = commands[i].fn;
    if (!fn) return bad_usage("unknown command '%s'", argv[1]);

    hp_opts o = {.model = hp_model_default(), .max_errors = 20, .top = -1};
    const char *path = NULL;
    int rc = parse_args(argc, argv, &o, &path);
    if (rc != HP_EXIT_OK) return rc;

    hp_file f;
    hp_error e = {0};
    if (hp_open(&f, path, &e) != 0) {
        int io = f.base == NULL; /* nothing mapped: an I/O problem, not bad content */
        if (io)
            fprintf(stderr, "hprof: error: %s: %s\n", path, e.what);
        else
            hp_report(stderr, &f, &e);
        hp_close(&f);
        return io ? HP_EXIT_IO : HP_EXIT_MALFORMED;
    }
    rc = run(fn, &f, &o);
    hp_close(&f);
    return rc;
}
