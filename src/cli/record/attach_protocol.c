#include "cli/record/attach_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* How long the JVM may take to open its socket after SIGQUIT (as jcmd), and
 * to answer a request (the agent's start or final dump). */
#define SOCKET_WAIT_MS 10000
#define ANSWER_WAIT_MS 600000

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static enum hp_attach fail(char *msg, size_t cap, enum hp_attach why, const char *fmt,
                           const char *arg)
{
    snprintf(msg, cap, fmt, arg);
    return why;
}

/* The socket's path as we see it: the JVM's /tmp, through its root. */
static void socket_path(const struct hp_jvm *j, char *out, size_t cap)
{
    snprintf(out, cap, "%s/tmp/.java_pid%d", j->root, (int)j->ns_pid);
}

/* The trigger file goes into the JVM's working directory, else its /tmp. */
static bool make_trigger(const struct hp_jvm *j, char *path, size_t cap)
{
    const char *dirs[] = {j->cwd, NULL};
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s/tmp", j->root);
    dirs[1] = tmp;
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, cap, "%s/.attach_pid%d", dirs[i], (int)j->ns_pid);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) {
            close(fd);
            return true;
        }
    }
    return false;
}

/* Makes the JVM open its socket, if it has not yet. */
static enum hp_attach start_listener(const struct hp_jvm *j, const char *sock, char *msg,
                                     size_t cap)
{
    struct stat st;
    if (stat(sock, &st) == 0) return HP_ATTACH_OK;
    if (j->attach_disabled)
        return fail(msg, cap, HP_ATTACH_REFUSED, "%s",
                    "the JVM was started with -XX:+DisableAttachMechanism");
    /* Without a handler SIGQUIT would end the JVM (-Xrs, or still starting). */
    if (!j->sigquit_caught)
        return fail(msg, cap, HP_ATTACH_REFUSED, "%s",
                    "the JVM does not handle SIGQUIT (-Xrs, or not started yet): not signalled");
    char trigger[160];
    if (!make_trigger(j, trigger, sizeof trigger))
        return fail(msg, cap, errno == EACCES ? HP_ATTACH_DENIED : HP_ATTACH_REFUSED,
                    "cannot create the attach trigger file (%s)", strerror(errno));
    enum hp_attach rc = HP_ATTACH_OK;
    if (kill(j->pid, SIGQUIT) != 0) {
        rc = errno == EPERM ? fail(msg, cap, HP_ATTACH_DENIED, "%s", "not allowed to signal it")
                            : fail(msg, cap, HP_ATTACH_GONE, "%s", "the process ended");
    } else {
        int waited = 0;
        while (stat(sock, &st) != 0 && waited < SOCKET_WAIT_MS && hp_jvm_alive(j->pid)) {
            sleep_ms(50);
            waited += 50;
        }
        if (!hp_jvm_alive(j->pid))
            rc = fail(msg, cap, HP_ATTACH_GONE, "%s", "the process ended");
        else if (stat(sock, &st) != 0)
            rc = fail(msg, cap, HP_ATTACH_REFUSED, "%s",
                      "the JVM opened no attach socket within 10 s (attach disabled?)");
    }
    unlink(trigger);
    return rc;
}

/* Only a socket of the JVM's own user: anyone else could have put one there. */
static enum hp_attach check_owner(const struct hp_jvm *j, const char *sock, char *msg, size_t cap)
{
    struct stat st;
    if (stat(sock, &st) != 0 || !S_ISSOCK(st.st_mode))
        return fail(msg, cap, HP_ATTACH_REFUSED, "%s is not a socket", sock);
    uid_t me = geteuid();
    if (st.st_uid != me && !(me == 0 && st.st_uid == j->uid))
        return fail(msg, cap, HP_ATTACH_DENIED, "%s belongs to another user than the caller", sock);
    return HP_ATTACH_OK;
}

static bool send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads the whole answer (the JVM closes the connection after it). */
static bool read_answer(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, ANSWER_WAIT_MS);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
        if (n == cap - 1) break;
    }
    buf[n] = '\0';
    return true;
}

/* Protocol 1: "1", the command and exactly three arguments, each ending in
 * NUL. The answer: a status line (0: done), then the command's output,
 * for "load" "return code: N" with Agent_OnAttach's result. */
static enum hp_attach request(int fd, const char *lib, const char *options, char *msg, size_t cap)
{
    char req[8192];
    int n = snprintf(req, sizeof req, "1%cload%c%s%ctrue%c%s%c", 0, 0, lib, 0, 0, options, 0);
    if (n < 0 || (size_t)n >= sizeof req)
        return fail(msg, cap, HP_ATTACH_REFUSED, "%s", "agent path or options too long");
    char answer[4096];
    if (!send_all(fd, req, (size_t)n) || !read_answer(fd, answer, sizeof answer))
        return fail(msg, cap, HP_ATTACH_REFUSED, "no answer from the JVM (%s)", strerror(errno));
    const char *out = strchr(answer, '\n');
    out = out ? out + 1 : "";
    if (strncmp(answer, "0\n", 2) == 0 && strncmp(out, "return code: 0", 14) == 0)
        return HP_ATTACH_OK;
    char text[512];
    snprintf(text, sizeof text, "%.500s", *out ? out : answer);
    text[strcspn(text, "\n")] = '\0';
    return fail(msg, cap, HP_ATTACH_REFUSED, "the JVM answered: %s", text);
}

enum hp_attach hp_attach_load(const struct hp_jvm *j, const char *lib, const char *options,
                              char *msg, size_t cap)
{
    char sock[128];
    socket_path(j, sock, sizeof sock);
    enum hp_attach rc = start_listener(j, sock, msg, cap);
    if (rc == HP_ATTACH_OK) rc = check_owner(j, sock, msg, cap);
    if (rc != HP_ATTACH_OK) return rc;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof addr.sun_path)
        return fail(msg, cap, HP_ATTACH_REFUSED, "socket path too long: %s", sock);
    strcpy(addr.sun_path, sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail(msg, cap, HP_ATTACH_REFUSED, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        if (!hp_jvm_alive(j->pid)) return fail(msg, cap, HP_ATTACH_GONE, "%s", "the process ended");
        return fail(msg, cap, e == EACCES ? HP_ATTACH_DENIED : HP_ATTACH_REFUSED,
                    "cannot connect to the attach socket (%s)", strerror(e));
    }
    rc = request(fd, lib, options, msg, cap);
    close(fd);
    if (rc != HP_ATTACH_OK && !hp_jvm_alive(j->pid))
        return fail(msg, cap, HP_ATTACH_GONE, "%s", "the process ended");
    return rc;
}
