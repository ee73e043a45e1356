#include "agent/io/sink.h"

#include "agent/io/naming.h"
#include "agent/io/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* A FIFO is opened for writing only once a reader has it open; a plain
 * open would wait for one forever. */
static int open_fifo(const char *path)
{
    for (int waited = 0;; waited += 50) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO || waited >= HP_OUT_STALL_MS) return fd;
        sleep_ms(50);
    }
}

int hp_sink_open_file(const char *name, bool force, bool binary, char **actual)
{
    struct stat st;
    char *path;
    if (!force && stat(name, &st) == 0)
        path = hp_unique_filename(name, binary, (long)getpid());
    else
        path = strdup(name);
    if (path == NULL) return -1;
    /* Only a plain file is replaced: a link, a device or a pipe
     * (file=/dev/stdout) is written through. */
    if (force && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) (void)remove(path);
    /* Readable if it can be: a heap dump may move the output into the JVM's
     * file (io/writer.h). */
    int fd;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        fd = open_fifo(path);
    } else {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        int e = errno;
        free(path);
        errno = e;
        return -1;
    }
    *actual = path;
    return fd;
}

/* connect() that gives up after HP_OUT_STALL_MS (a peer that drops SYNs
 * would hold the JVM's start for minutes); fd stays blocking. */
static bool connect_bounded(int fd, const struct sockaddr *addr, socklen_t len)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return false;
    int rc = connect(fd, addr, len);
    if (rc != 0 && (errno == EINPROGRESS || errno == EINTR)) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t el = sizeof err;
        do {
            rc = poll(&p, 1, HP_OUT_STALL_MS);
        } while (rc < 0 && errno == EINTR);
        rc = rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0 ? 0 : -1;
    }
    return rc == 0 && fcntl(fd, F_SETFL, flags) == 0;
}

int hp_sink_connect(const char *host, int port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect_bounded(fd, a->ai_addr, a->ai_addrlen)) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}
