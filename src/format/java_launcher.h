/*
 * The java launcher's command line, as the agent reads its own and the front
 * end another JVM's (/proc/<pid>/cmdline: NUL-terminated arguments). The
 * JVM's options come first, up to the main class, -jar or -m.
 */
#ifndef HPROF_FORMAT_JAVA_LAUNCHER_H
#define HPROF_FORMAT_JAVA_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Options whose value is the next argument. */
static inline bool hp_launcher_takes_value(const char *a)
{
    static const char *const names[] = {"-cp",
                                        "-classpath",
                                        "--class-path",
                                        "-p",
                                        "--module-path",
                                        "--add-modules",
                                        "--upgrade-module-path",
                                        "--limit-modules",
                                        "--add-reads",
                                        "--add-exports",
                                        "--add-opens",
                                        "--patch-module",
                                        "--source",
                                        "-d",
                                        "--describe-module",
                                        "--enable-native-access"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(a, names[i]) == 0) return true;
    return false;
}

/* -jar, -m, --module: the next argument names the program. */
static inline bool hp_launcher_names_main(const char *a)
{
    return strcmp(a, "-jar") == 0 || strcmp(a, "-m") == 0 || strcmp(a, "--module") == 0;
}

#endif
