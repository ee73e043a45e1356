/* hprof record PID [-d DURATION] [-o FILE] [--flame] [--agent LIB] [AGENT-OPTIONS]
 * hprof record --list */
#include "cli/commands/cli.h"
#include "cli/record/attach_protocol.h"
#include "cli/record/record.h"
#include "cli/render/commands.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: hprof record PID [-d DURATION] [-o FILE] [--flame] [--agent LIB] [OPTIONS]\n"
    "       hprof record --list\n"
    "Attaches the hprof agent to the running JVM PID with OPTIONS (agent options,\n"
    "default cpu=samples; not file= or net=), records for DURATION (30, 30s, 500ms,\n"
    "2m; default: until Ctrl-C), stops the agent and writes its report to FILE\n"
    "(default hprof-PID.txt, or .hprof with format=b); --flame also writes\n"
    "FILE.html. --list: the running JVMs of this user (pid, JDK, main class).\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

struct record_args {
    pid_t pid;
    long duration_ms; /* < 0: until interrupted */
    const char *out, *agent, *options;
    int flame, list;
};

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "hprof: record: %s%s\n%s", what, arg, usage);
    return HP_EXIT_USAGE;
}

static int parse_duration(const char *s, long *ms)
{
    char *end;
    double v = strtod(s, &end);
    double scale = !strcmp(end, "") || !strcmp(end, "s") ? 1000
                   : !strcmp(end, "ms")                  ? 1
                   : !strcmp(end, "m")                   ? 60000
                   : !strcmp(end, "h")                   ? 3600000
                                                         : -1;
    if (end == s || scale < 0 || v < 0 || v * scale > 1e12) return -1;
    *ms = (long)(v * scale);
    return 0;
}

/* file= and net= belong to hprof record. */
static int options_ok(const char *options)
{
    for (const char *o = options; o && *o; o = strchr(o, ','), o += !!o)
        if (!strncmp(o, "file=", 5) || !strncmp(o, "net=", 4)) return 0;
    return 1;
}

static int parse(int argc, char **argv, struct record_args *a)
{
    *a = (struct record_args){.duration_ms = -1, .options = "cpu=samples"};
    int have_pid = 0, have_options = 0;
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        int needs = !strcmp(s, "-d") || !strcmp(s, "-o") || !strcmp(s, "--agent");
        if (needs && i + 1 == argc) return bad("missing value after ", s);
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            fputs(usage, stdout);
            return -1;
        } else if (!strcmp(s, "--list")) {
            a->list = 1;
        } else if (!strcmp(s, "--flame")) {
            a->flame = 1;
        } else if (!strcmp(s, "-d")) {
            if (parse_duration(argv[++i], &a->duration_ms)) return bad("bad duration ", argv[i]);
        } else if (!strcmp(s, "-o")) {
            a->out = argv[++i];
        } else if (!strcmp(s, "--agent")) {
            a->agent = argv[++i];
        } else if (s[0] == '-') {
            return bad("unknown option ", s);
        } else if (!have_pid) {
            char *end;
            long pid = strtol(s, &end, 10);
            if (*end || pid <= 0 || pid > INT_MAX) return bad("not a process id: ", s);
            a->pid = (pid_t)pid;
            have_pid = 1;
        } else if (have_options++) {
            return bad("unexpected argument ", s);
        } else {
            a->options = s;
        }
    }
    if (!a->list && !have_pid) return bad("missing PID", "");
    if (!options_ok(a->options))
        return bad("hprof record chooses the output: no file= or net= in ", a->options);
    return HP_EXIT_OK;
}

static int list_jvms(void)
{
    DIR *d = opendir("/proc");
    if (d == NULL) {
        fprintf(stderr, "hprof: error: /proc: %s\n", strerror(errno));
        return HP_EXIT_IO;
    }
    uid_t me = geteuid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        struct hp_jvm j;
        if (*end || pid <= 0 || pid == getpid() || hp_jvm_probe((pid_t)pid, &j) != HP_PROBE_OK)
            continue;
        if (me == 0 || j.uid == me) printf("%ld\t%s\t%s\n", pid, j.version, j.main);
    }
    closedir(d);
    return HP_EXIT_OK;
}

/* libhprof.so: --agent, $HPROF_AGENT, or beside this executable. */
static int find_agent(const char *given, char *out, size_t cap)
{
    const char *env = getenv("HPROF_AGENT");
    if (given || (env && *env)) {
        if (!realpath(given ? given : env, out)) return -1;
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n < 0) return -1;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        if ((size_t)snprintf(out, cap, "%s/libhprof.so", self) >= cap) return -1;
    }
    return access(out, R_OK);
}

static int probe_error(pid_t pid, enum hp_probe p)
{
    const char *why = p == HP_PROBE_NO_PROCESS ? "no such process"
                      : p == HP_PROBE_NOT_JVM  ? "not a HotSpot JVM (no libjvm.so mapped)"
                                               : "permission denied (another user's process)";
    fprintf(stderr, "hprof: error: %d: %s\n", (int)pid, why);
    return p == HP_PROBE_DENIED ? HP_RECORD_DENIED : HP_RECORD_NO_JVM;
}

static int attach_error(pid_t pid, enum hp_attach a, const char *msg)
{
    fprintf(stderr, "hprof: error: %d: %s\n", (int)pid, msg);
    return a == HP_ATTACH_GONE     ? HP_RECORD_EXITED
           : a == HP_ATTACH_DENIED ? HP_RECORD_DENIED
                                   : HP_RECORD_REFUSED;
}

/* Waits the duration, or until Ctrl-C or the JVM's exit; false if it exited. */
static int wait_recording(pid_t pid, long duration_ms)
{
    const struct timespec tick = {0, 100 * 1000000L};
    for (long waited = 0; !interrupted && (duration_ms < 0 || waited < duration_ms);
         waited += 100) {
        if (!hp_jvm_alive(pid)) return 0;
        nanosleep(&tick, NULL);
    }
    return hp_jvm_alive(pid);
}

/* Paths as the JVM and as we see them: its /tmp, through its root. */
struct paths {
    char agent[PATH_MAX], agent_here[PATH_MAX + 64]; /* agent_here: a copy for a container */
    char report[128], report_here[PATH_MAX];
};

static int set_paths(const struct hp_jvm *j, const char *agent, int binary, struct paths *p)
{
    snprintf(p->report, sizeof p->report, "/tmp/hprof-record-%d-%d.%s", (int)j->ns_pid,
             (int)getpid(), binary ? "hprof" : "txt");
    snprintf(p->report_here, sizeof p->report_here, "%s%s", j->same_root ? "" : j->root, p->report);
    p->agent_here[0] = '\0';
    if (j->same_root) {
        snprintf(p->agent, sizeof p->agent, "%s", agent);
        return 0;
    }
    /* In a container the JVM cannot see our file: it loads a copy in its /tmp. */
    snprintf(p->agent, sizeof p->agent, "/tmp/.hprof-record-%d.so", (int)getpid());
    snprintf(p->agent_here, sizeof p->agent_here, "%s%s", j->root, p->agent);
    return hp_record_copy(agent, p->agent_here);
}

static int render_flame(const char *report)
{
    char html[PATH_MAX + 8];
    snprintf(html, sizeof html, "%s.html", report);
    char *argv[] = {"hprof", "flame", (char *)report, "-o", html, NULL};
    int rc = hp_profile_main(5, argv);
    if (rc == HP_EXIT_OK) printf("flame graph: %s\n", html);
    return rc;
}

/* Stops the agent, brings the report to `out`, prints its heads. */
static int finish(const struct record_args *a, const struct hp_jvm *j, const struct paths *p,
                  const char *out)
{
    char msg[600];
    int exited = !wait_recording(j->pid, a->duration_ms);
    enum hp_attach st =
        exited ? HP_ATTACH_GONE : hp_attach_load(j, p->agent, "stop", msg, sizeof msg);
    if (p->agent_here[0]) unlink(p->agent_here);
    int rc = HP_EXIT_OK;
    if (st == HP_ATTACH_GONE) {
        fprintf(stderr, "hprof: error: %d: the JVM exited during the recording\n", (int)j->pid);
        rc = HP_RECORD_EXITED;
    } else if (st != HP_ATTACH_OK) {
        return attach_error(j->pid, st, msg);
    }
    if (hp_record_move(p->report_here, out) != 0) {
        fprintf(stderr, "hprof: error: %s: %s\n", p->report_here, strerror(errno));
        return rc ? rc : HP_EXIT_IO;
    }
    printf("%s: profile of %d (%s, JDK %s)%s\n", out, (int)j->pid, j->main, j->version,
           rc ? ", as the JVM left it at exit" : "");
    hp_record_print_heads(stdout, out, 6);
    fflush(stdout);
    if (a->flame && rc == HP_EXIT_OK) rc = render_flame(out);
    return rc;
}

int hp_record_main(int argc, char **argv)
{
    struct record_args a;
    int rc = parse(argc, argv, &a);
    if (rc != HP_EXIT_OK) return rc < 0 ? HP_EXIT_OK : rc; /* < 0: --help */
    if (a.list) return list_jvms();
    struct hp_jvm j;
    enum hp_probe probe = hp_jvm_probe(a.pid, &j);
    if (probe != HP_PROBE_OK) return probe_error(a.pid, probe);
    char agent[PATH_MAX];
    if (find_agent(a.agent, agent, sizeof agent) != 0) {
        fprintf(stderr, "hprof: error: libhprof.so not found (--agent LIB or HPROF_AGENT)\n");
        return HP_EXIT_IO;
    }
    int binary = strstr(a.options, "format=b") != NULL;
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s", a.out ? a.out : "");
    if (!a.out) snprintf(out, sizeof out, "hprof-%d.%s", (int)a.pid, binary ? "hprof" : "txt");
    struct paths p = {0};
    if (set_paths(&j, agent, binary, &p) != 0) {
        fprintf(stderr, "hprof: error: cannot copy the agent into the JVM's /tmp: %s\n",
                strerror(errno));
        return HP_EXIT_IO;
    }
    char options[4096], msg[600];
    snprintf(options, sizeof options, "%s%sfile=%s", a.options, *a.options ? "," : "", p.report);
    /* From here on Ctrl-C ends the recording, never hprof alone: an agent
     * left running would record until the JVM exits. */
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    enum hp_attach st = hp_attach_load(&j, p.agent, options, msg, sizeof msg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != HP_ATTACH_OK) {
        if (p.agent_here[0]) unlink(p.agent_here);
        if (st == HP_ATTACH_REFUSED && strstr(msg, "return code"))
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
                     " (the agent's reason is on the JVM's standard error)");
        return attach_error(a.pid, st, msg);
    }
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    fprintf(stderr, "hprof: recording %d (%s, JDK %s) with %s, attached in %.0f ms%s\n", (int)a.pid,
            j.main, j.version, a.options, ms, a.duration_ms < 0 ? "; Ctrl-C stops" : "");
    return finish(&a, &j, &p, out);
}
