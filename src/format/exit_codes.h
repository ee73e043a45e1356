/*
 * Exit codes of both programs, in one place so that one name never means
 * two values. The agent's are what the JVM exits with, as with the JDK 8
 * agent (tests/core checks 1); the front end's are documented in
 * `hprof --help` and src/cli/README.md (tests/cli/cli_exit_test.py).
 */
#ifndef HPROF_EXIT_CODES_H
#define HPROF_EXIT_CODES_H

/* The agent (libhprof.so). */
enum hp_agent_exit {
    HP_AGENT_EXIT_USAGE = 1, /* a bad option: the JVM does not start */
    HP_AGENT_EXIT_FATAL = 9, /* "HPROF TERMINATED PROCESS" (every error under errorexit=y) */
};

/* The front end (hprof). */
enum hp_exit {
    HP_EXIT_OK = 0,
    HP_EXIT_MALFORMED = 1, /* the file is not well-formed HPROF */
    HP_EXIT_USAGE = 2,     /* bad command line */
    HP_EXIT_IO = 3,        /* the file cannot be opened or mapped */
    HP_EXIT_NODATA = 4,    /* well-formed, but lacks what was asked for */
};

#endif
