#include "agent/core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static bool verbose_on = true;
static bool error_exits, fatal_aborts;

void hp_set_verbose(bool on)
{
    verbose_on = on;
}

static void vprint(const char *prefix, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One write so that lines from concurrent threads do not interleave. */
    fprintf(stderr, "%s%s\n", prefix, msg);
    fflush(stderr);
}

static void vreport(const char *fmt, va_list ap)
{
    vprint("HPROF ERROR: ", fmt, ap);
}

void hp_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint("HPROF: ", fmt, ap);
    va_end(ap);
}

void hp_set_error_policy(bool errorexit, bool coredump)
{
    error_exits = errorexit;
    fatal_aborts = coredump;
}

static _Noreturn void terminate(int code)
{
    if (code == HP_AGENT_EXIT_FATAL) {
        if (fatal_aborts) {
            fputs("HPROF DUMPING CORE\n", stderr);
            fflush(stdout);
            fflush(stderr);
            abort();
        }
        fputs("HPROF TERMINATED PROCESS\n", stderr);
    }
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

void hp_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    if (error_exits) terminate(HP_AGENT_EXIT_FATAL);
}

void hp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

void hp_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    terminate(code);
}

void hp_verbose(const char *fmt, ...)
{
    if (!verbose_on) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

bool hp_jvmti_ok(jvmtiEnv *jvmti, jvmtiError err, const char *what)
{
    if (err == JVMTI_ERROR_NONE) return true;
    char *name = NULL;
    if (jvmti == NULL || (*jvmti)->GetErrorName(jvmti, err, &name) != JVMTI_ERROR_NONE) name = NULL;
    hp_error("%s (JVMTI Error %s(%d))", what, name ? name : "?", (int)err);
    if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    return false;
}
