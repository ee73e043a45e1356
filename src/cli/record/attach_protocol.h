/* HotSpot's attach protocol (Linux), spoken directly so that no JDK tool is
 * needed: the trigger file .attach_pid<pid> and SIGQUIT make the JVM open
 * the UNIX socket .java_pid<pid> in its temporary directory; one request
 * per connection, protocol version 1. */
#ifndef HPROF_CLI_RECORD_ATTACH_PROTOCOL_H
#define HPROF_CLI_RECORD_ATTACH_PROTOCOL_H

#include "cli/record/jvm_proc.h"

#include <stddef.h>

enum hp_attach {
    HP_ATTACH_OK,
    HP_ATTACH_GONE,    /* the process ended */
    HP_ATTACH_DENIED,  /* socket of another user, or no permission */
    HP_ATTACH_REFUSED, /* no attach socket, or the JVM or the agent said no */
};

/* Loads the agent at `lib` (a path as the JVM sees it) with `options`
 * (Agent_OnAttach). On failure, `msg` says why. */
enum hp_attach hp_attach_load(const struct hp_jvm *j, const char *lib, const char *options,
                              char *msg, size_t cap);

#endif
