/* Running JVMs as /proc shows them: whether a process is a HotSpot JVM, its
 * pid inside its own pid namespace, its root and working directory (so that
 * JVMs in containers are found), main class and JDK version. */
#ifndef HPROF_CLI_RECORD_JVM_PROC_H
#define HPROF_CLI_RECORD_JVM_PROC_H

#include <stdbool.h>
#include <sys/types.h>

enum hp_probe {
    HP_PROBE_OK,
    HP_PROBE_NO_PROCESS, /* no such pid */
    HP_PROBE_NOT_JVM,    /* no libjvm.so mapped */
    HP_PROBE_DENIED,     /* /proc refuses to show it: another user's */
};

struct hp_jvm {
    pid_t pid;
    pid_t ns_pid;         /* the pid the JVM knows itself by */
    uid_t uid;            /* effective uid */
    char root[64];        /* /proc/<pid>/root */
    char cwd[64];         /* /proc/<pid>/cwd */
    char main[256];       /* main class, -jar file or module; "-" if none */
    char version[64];     /* JAVA_VERSION of the JDK's release file; "?" if unknown */
    bool same_root;       /* our view of the files: same root, same mounts (not in a container) */
    bool sigquit_caught;  /* a SIGQUIT handler is installed (else SIGQUIT would end it) */
    bool attach_disabled; /* -XX:+DisableAttachMechanism on its command line or in
                             JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS */
};

enum hp_probe hp_jvm_probe(pid_t pid, struct hp_jvm *out);
/* True while the process exists and is not a zombie. */
bool hp_jvm_alive(pid_t pid);

#endif
