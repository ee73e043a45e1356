#include "agent/io/naming.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *hp_default_filename(bool binary)
{
    return binary ? "java.hprof" : "java.hprof.txt";
}

char *hp_unique_filename(const char *name, bool binary, long pid)
{
    size_t prefix = strlen(name);
    const char *suffix = "";
    if (!binary) {
        suffix = ".txt";
        /* The original compared the 4 characters at the last dot with ".txt"
         * and then kept everything from that dot on as the suffix. */
        const char *dot = strrchr(name, '.');
        if (dot && strncasecmp(dot, ".txt", 4) == 0) {
            suffix = dot;
            prefix = (size_t)(dot - name);
        }
    }
    size_t n = prefix + strlen(suffix) + 32;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%.*s.%ld%s", (int)prefix, name, pid, suffix);
    return out;
}
