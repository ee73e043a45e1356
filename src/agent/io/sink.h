/* Where the profile goes: a file or a TCP connection the agent opens. */
#ifndef HPROF_SINK_H
#define HPROF_SINK_H

#include <stdbool.h>

/* Creates the output file (mode 0644). force=y replaces an existing plain
 * file (a link, device or pipe such as /dev/stdout is written through);
 * force=n picks a unique name instead. A FIFO must find a reader within
 * HP_OUT_STALL_MS (io/writer.h). *actual receives the name used
 * (malloc'ed). Returns the fd, or -1 with errno set. */
int hp_sink_open_file(const char *name, bool force, bool binary, char **actual);

/* Connects to host:port over IPv4 or IPv6, each address tried for at most
 * HP_OUT_STALL_MS; returns the fd or -1. */
int hp_sink_connect(const char *host, int port);

#endif
