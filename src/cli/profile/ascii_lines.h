/* Line-level parsing of ascii profiles: a cursor over the text, strict
 * numbers, and the frame line "\tClass.method(Source.java:line)". */
#ifndef HPROF_CLI_PROFILE_ASCII_LINES_H
#define HPROF_CLI_PROFILE_ASCII_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "cli/profile/profile.h"
#include "cli/readers/reader.h"

typedef struct {
    const char *p, *end;
    const char *line; /* current line, without its '\n' */
    size_t len;
    uint64_t lineno; /* 1-based number of the current line */
} hp_cursor;

/* Advances to the next line; 0 at the end of the text. */
int hp_cursor_next(hp_cursor *c);
/* Reports a problem with the current line; returns -1. */
int hp_cursor_fail(const hp_cursor *c, hp_error *err, const char *what);

/* Whether the current line starts with / is exactly `s`. */
int hp_line_starts(const hp_cursor *c, const char *s);
int hp_line_is(const hp_cursor *c, const char *s);

/* Splits the current line at runs of spaces into at most `max` fields
 * (the last takes the rest of the line). Returns the number of fields. */
int hp_line_fields(const hp_cursor *c, const char **start, size_t *len, int max);
/* Strict decimal parsing of a whole field; 0 or -1. */
int hp_parse_u64(const char *s, size_t n, uint64_t *out);
/* "12.34%" -> 1234 (hundredths of a percent); 0 or -1. */
int hp_parse_percent(const char *s, size_t n, uint64_t *hundredths);

/* Parses a TRACE frame line (without its tab) into a frame; 0 or -1.
 * With p NULL the line is only checked. */
int hp_parse_frame(hp_profile *p, const char *s, size_t n, hp_pframe *out);
/* Parses a cpu=old method "Class.method(sig)ret"; 0 or -1. */
int hp_parse_old_method(hp_profile *p, const char *s, size_t n, hp_pframe *out);

#endif
