/*
 * The JVM's own options as the agent can read them at load: JVM TI gives no
 * access to them, so they are read where HotSpot takes them from, in its
 * order (a later option wins): JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS (the
 * launcher's), the command line, _JAVA_OPTIONS. Argument files and
 * -XX:Flags= files are not read.
 */
#ifndef HPROF_AGENT_CORE_JVM_ARGS_H
#define HPROF_AGENT_CORE_JVM_ARGS_H

#include <stddef.h>

/* The option that makes class data sharing mandatory ("-Xshare:on" or
 * JDK 24+'s "-XX:AOTMode=on"), copied into out; "" when sharing may be off.
 * The JVM refuses to start with it while an agent hooks class loading from
 * the start (it turns sharing off). The command line is n bytes of
 * NUL-terminated arguments (as in /proc/self/cmdline), the environment
 * variables whitespace-separated words (NULL when unset). */
void hp_jvm_args_mandatory_sharing(const char *tool_options, const char *jdk_java_options,
                                   const char *cmdline, size_t cmdline_len,
                                   const char *java_options, char *out, size_t out_len);

/* The same for this process: its environment and /proc/self/cmdline. */
void hp_jvm_args_mandatory_sharing_here(char *out, size_t out_len);

#endif
