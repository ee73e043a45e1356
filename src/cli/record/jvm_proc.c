#include "cli/record/jvm_proc.h"

#include "format/java_launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads a whole /proc file (they report size 0); NUL-terminated. NULL with
 * errno set on failure. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (ssize_t got = 1; buf && got > 0;) {
        if (n == cap) {
            char *more = realloc(buf, (cap *= 2) + 1);
            if (more == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
        }
        got = read(fd, buf + n, cap - n);
        if (got < 0) {
            int e = errno;
            free(buf);
            buf = NULL;
            errno = e;
        } else {
            n += (size_t)got;
        }
    }
    close(fd);
    if (buf) buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

/* The value after "Key:" in /proc/<pid>/status, or NULL. */
static const char *status_field(const char *status, const char *key)
{
    size_t k = strlen(key);
    for (const char *line = status; line && *line; line = strchr(line, '\n'), line += !!line)
        if (strncmp(line, key, k) == 0 && line[k] == ':') return line + k + 1;
    return NULL;
}

static void read_status(struct hp_jvm *j, const char *status)
{
    const char *ns = status_field(status, "NSpid");
    j->ns_pid = j->pid;
    for (char *end; ns && *ns && *ns != '\n'; ns = end) {
        long v = strtol(ns, &end, 10);
        if (end == ns) break;
        j->ns_pid = (pid_t)v; /* the last one: the innermost namespace */
    }
    const char *uid = status_field(status, "Uid");
    if (uid) {
        char *end;
        strtoul(uid, &end, 10); /* real */
        j->uid = (uid_t)strtoul(end, NULL, 10);
    }
    const char *caught = status_field(status, "SigCgt");
    j->sigquit_caught = caught && (strtoull(caught, NULL, 16) & (1ull << (3 - 1)));
}

/* The path of the mapped libjvm.so, or "" if none. */
static void find_libjvm(const char *maps, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *line = maps; line && *line; line = strchr(line, '\n'), line += !!line) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *path = memchr(line, '/', n);
        static const char lib[] = "/libjvm.so";
        if (path == NULL || n < sizeof lib - 1) continue;
        size_t plen = n - (size_t)(path - line);
        if (plen < cap && memcmp(path + plen - (sizeof lib - 1), lib, sizeof lib - 1) == 0) {
            memcpy(out, path, plen);
            out[plen] = '\0';
            return;
        }
    }
}

/* JAVA_VERSION from the release file of the JDK that holds libjvm.so
 * (lib/server/libjvm.so, or jre/lib/amd64/server/libjvm.so in JDK 8). */
static void read_version(struct hp_jvm *j, const char *libjvm)
{
    snprintf(j->version, sizeof j->version, "?");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", libjvm);
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir) return;
        *slash = '\0';
        char path[4200];
        snprintf(path, sizeof path, "%s%s/release", j->same_root ? "" : j->root, dir);
        char *release = slurp(path, NULL);
        if (release == NULL) continue;
        const char *v = strstr(release, "JAVA_VERSION=\"");
        if (v) {
            v += strlen("JAVA_VERSION=\"");
            snprintf(j->version, sizeof j->version, "%.*s", (int)strcspn(v, "\"\n"), v);
        }
        free(release);
        return;
    }
}

/* The main class, -jar file or -m module from the NUL-separated argv. */
static void read_main(struct hp_jvm *j, const char *cmdline, size_t len)
{
    snprintf(j->main, sizeof j->main, "-");
    const char *end = cmdline + len;
    const char *a = cmdline + strnlen(cmdline, len) + 1; /* past argv[0] */
    for (; a < end; a += strnlen(a, (size_t)(end - a)) + 1) {
        if (strcmp(a, "-XX:+DisableAttachMechanism") == 0) j->attach_disabled = true;
        bool names_main = hp_launcher_names_main(a);
        if (names_main || hp_launcher_takes_value(a)) {
            a += strnlen(a, (size_t)(end - a)) + 1;
            if (names_main && a < end) {
                snprintf(j->main, sizeof j->main, "%s", a);
                return;
            }
        } else if (a[0] != '-') {
            snprintf(j->main, sizeof j->main, "%s", a);
            return;
        }
    }
}

/* -XX:+DisableAttachMechanism given through the environment. */
static bool disabled_in_environment(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    size_t len = 0;
    char *env = slurp(path, &len);
    bool found = false;
    for (const char *v = env; v && v < env + len; v += strlen(v) + 1)
        if ((strncmp(v, "JAVA_TOOL_OPTIONS=", 18) == 0 ||
             strncmp(v, "JDK_JAVA_OPTIONS=", 17) == 0) &&
            strstr(v, "-XX:+DisableAttachMechanism"))
            found = true;
    free(env);
    return found;
}

static bool same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* The same root directory is not enough: a container may share it and mount
 * its own /tmp over it, where the JVM writes the report. */
static bool same_root(pid_t pid, const char *root)
{
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)pid);
    return same_file("/", root) && same_file("/proc/self/ns/mnt", ns);
}

enum hp_probe hp_jvm_probe(pid_t pid, struct hp_jvm *j)
{
    memset(j, 0, sizeof *j);
    j->pid = pid;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    char *status = slurp(path, NULL);
    if (status == NULL) return errno == EACCES ? HP_PROBE_DENIED : HP_PROBE_NO_PROCESS;
    read_status(j, status);
    free(status);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    char *maps = slurp(path, NULL);
    if (maps == NULL)
        return errno == ENOENT || errno == ESRCH ? HP_PROBE_NO_PROCESS : HP_PROBE_DENIED;
    char libjvm[4096];
    find_libjvm(maps, libjvm, sizeof libjvm);
    free(maps);
    if (libjvm[0] == '\0') return HP_PROBE_NOT_JVM;
    snprintf(j->root, sizeof j->root, "/proc/%d/root", (int)pid);
    snprintf(j->cwd, sizeof j->cwd, "/proc/%d/cwd", (int)pid);
    j->same_root = same_root(pid, j->root);
    read_version(j, libjvm);
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    size_t len = 0;
    char *cmdline = slurp(path, &len);
    if (cmdline && len) read_main(j, cmdline, len);
    free(cmdline);
    j->attach_disabled |= disabled_in_environment(pid);
    return HP_PROBE_OK;
}

bool hp_jvm_alive(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    char *stat = slurp(path, NULL);
    if (stat == NULL) return false;
    const char *close_paren = strrchr(stat, ')'); /* the name may hold spaces and ')' */
    bool alive =
        close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' && close_paren[2] != 'X';
    free(stat);
    return alive;
}
