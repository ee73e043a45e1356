#include "agent/core/jvm_args.h"

#include "format/java_launcher.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sharing {
    const char *share; /* -Xshare:on or -XX:+RequireSharedSpaces, if the last word */
    const char *aot;   /* -XX:AOTMode=on, if the last word */
};

static bool starts(const char *s, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);
    return n >= p && memcmp(s, prefix, p) == 0;
}

static bool is(const char *s, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(s, word, n) == 0;
}

static void option(struct sharing *st, const char *s, size_t n)
{
    if (starts(s, n, "-Xshare:"))
        st->share = is(s, n, "-Xshare:on") ? "-Xshare:on" : NULL;
    else if (starts(s, n, "-XX:") && n > 5 && is(s + 5, n - 5, "RequireSharedSpaces"))
        st->share = s[4] == '+' ? "-XX:+RequireSharedSpaces" : NULL;
    else if (starts(s, n, "-XX:AOTMode="))
        st->aot = is(s, n, "-XX:AOTMode=on") ? "-XX:AOTMode=on" : NULL;
}

static void words(struct sharing *st, const char *text)
{
    if (text == NULL) return;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        if (p > w) option(st, w, (size_t)(p - w));
    }
}

/* The JVM's options on a command line: after the launcher's name, up to the
 * main class, -jar or -m (what follows is the program's). */
static void command_line(struct sharing *st, const char *args, size_t len)
{
    size_t i = 0;
    bool first = true, value = false;
    while (i < len) {
        const char *a = args + i;
        size_t n = strnlen(a, len - i);
        i += n + 1;
        if (first || value) {
            first = value = false;
            continue;
        }
        if (n == 0 || a[0] != '-' || hp_launcher_names_main(a) || starts(a, n, "--module=")) return;
        if (hp_launcher_takes_value(a))
            value = true;
        else
            option(st, a, n);
    }
}

void hp_jvm_args_mandatory_sharing(const char *tool_options, const char *jdk_java_options,
                                   const char *cmdline, size_t cmdline_len,
                                   const char *java_options, char *out, size_t out_len)
{
    struct sharing st = {NULL, NULL};
    words(&st, tool_options);
    words(&st, jdk_java_options);
    if (cmdline != NULL) command_line(&st, cmdline, cmdline_len);
    words(&st, java_options);
    const char *which = st.share ? st.share : st.aot ? st.aot : "";
    snprintf(out, out_len, "%s", which);
}

/* /proc/self/cmdline, whole (it has no size to stat); NULL if unreadable. */
static char *read_cmdline(size_t *len)
{
    *len = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            size_t bigger = cap ? cap * 2 : 4096;
            char *p = bigger <= ((size_t)64 << 20) ? realloc(buf, bigger + 1) : NULL;
            if (p == NULL) {
                free(buf);
                buf = NULL;
                n = 0;
                break;
            }
            buf = p;
            cap = bigger;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (buf != NULL) buf[n] = '\0'; /* the last argument ends even if cut short */
    *len = n;
    return buf;
}

void hp_jvm_args_mandatory_sharing_here(char *out, size_t out_len)
{
    size_t len = 0;
    char *cmdline = read_cmdline(&len);
    hp_jvm_args_mandatory_sharing(getenv("JAVA_TOOL_OPTIONS"), getenv("JDK_JAVA_OPTIONS"), cmdline,
                                  len, getenv("_JAVA_OPTIONS"), out, out_len);
    free(cmdline);
}
