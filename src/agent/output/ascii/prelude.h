#ifndef HPROF_ASCII_PRELUDE_H
#define HPROF_ASCII_PRELUDE_H

extern const char hp_ascii_prelude[];
/* Added to the prelude when the agent was attached to a running JVM. */
extern const char hp_ascii_prelude_attached[];

#endif
