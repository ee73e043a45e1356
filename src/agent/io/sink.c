#include "sink.h"

#include "naming.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        free(path);
        errno = e;
        return -1;
    }
    *actual = path;
    return fd;
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
        int rc;
        do {
            rc = connect(fd, a->ai_addr, a->ai_addrlen);
        } while (rc != 0 && errno == EINTR);
        if (rc == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}
