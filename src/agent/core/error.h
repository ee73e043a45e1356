/* Error reporting in the original's format: "HPROF ERROR: <message>". */
#ifndef HPROF_ERROR_H
#define HPROF_ERROR_H

#include "format/exit_codes.h"

#include <jvmti.h>
#include <stdbool.h>

/* errorexit=y makes every error fatal (exit 9); coredump=y (or debug=y)
 * makes fatal errors abort() for a core file instead of exiting. */
void hp_set_error_policy(bool errorexit, bool coredump);
void hp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "HPROF ERROR: <message>" and nothing else, whatever errorexit= says:
 * for an attached agent refusing a request in a JVM it must not end. */
void hp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the error and "HPROF TERMINATED PROCESS", then exits (code 9:
 * "HPROF DUMPING CORE" and abort() under coredump=y). */
_Noreturn void hp_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "HPROF: <note>" on stderr, whatever verbose= says: something the user
 * should know that is not an error (errorexit=y does not act on it). */
void hp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and notes on stderr, shown only with verbose=y. */
void hp_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hp_set_verbose(bool on);

/* Reports a failed JVM TI call ("... (JVMTI Error NAME(n))") and returns
 * false; returns true on success. Callers degrade instead of exiting. */
bool hp_jvmti_ok(jvmtiEnv *jvmti, jvmtiError err, const char *what);

#endif
