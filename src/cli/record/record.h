/* hprof record: attach the agent to a running JVM, record for a while,
 * stop it and bring the report home; hprof record --list: the JVMs. */
#ifndef HPROF_CLI_RECORD_RECORD_H
#define HPROF_CLI_RECORD_RECORD_H

#include <stdio.h>

/* Exit codes beyond the front end's 0-4 (documented in README.md). */
enum {
    HP_RECORD_NO_JVM = 5,  /* no such process, or not a HotSpot JVM */
    HP_RECORD_DENIED = 6,  /* another user's JVM */
    HP_RECORD_REFUSED = 7, /* attach disabled or failed, or the agent refused */
    HP_RECORD_EXITED = 8,  /* the JVM exited during the recording */
};

/* argv[1] is "record"; returns the exit status. */
int hp_record_main(int argc, char **argv);

/* report_file.c: moves `from` to `to` (a copy across file systems). 0, or
 * -1 with errno set. */
int hp_record_move(const char *from, const char *to);
/* Copies a file; 0, or -1 with errno set. */
int hp_record_copy(const char *from, const char *to);
/* The first lines of each section of an ascii report (binary: nothing). */
void hp_record_print_heads(FILE *out, const char *path, int lines);

#endif
