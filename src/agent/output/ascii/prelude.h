#ifndef HPROF_ASCII_PRELUDE_H
#define HPROF_ASCII_PRELUDE_H

extern const char hp_ascii_prelude[];

#endif
