/*
 * Reading profiles: the format (ascii java.hprof.txt, cpu=old text, or
 * binary format=b) is detected from the file's content. Every kind of data
 * in the file becomes one hp_profile; CPU sections of several dumps are
 * summed (each covers the time since the previous dump), SITES come from
 * the last dump (they are cumulative).
 */
#ifndef HPROF_CLI_PROFILE_LOAD_H
#define HPROF_CLI_PROFILE_LOAD_H

#include "cli/profile/profile.h"
#include "cli/readers/reader.h"

typedef struct {
    hp_profile kinds[HP_PK_NKINDS];
    int present[HP_PK_NKINDS]; /* the file has a section of this kind */
    int format;                /* HP_PFMT_* */
    int want;                  /* the kind to read, or HP_WANT_* */
} hp_profile_set;

enum { HP_WANT_FIRST = -1, HP_WANT_ALL = -2 };

/* Binary files read only the wanted kind's stacks (HP_WANT_FIRST: the first of
 * samples, times, old, sites the file has; HP_WANT_ALL: every kind); ascii
 * files are read whole in one pass. */

/* 0; -1 for malformed content, -2 when the file cannot be opened or mapped.
 * Content errors end in "at line N" (ascii) or "at offset N" (binary). */
int hp_profile_load(hp_profile_set *set, const char *path, int want, hp_error *err);
/* The same over a caller's buffer (tests, fuzzing). */
int hp_profile_load_mem(hp_profile_set *set, const char *name, const uint8_t *buf, size_t len,
                        int want, hp_error *err);
void hp_profile_set_free(hp_profile_set *set);

/* Format-specific readers, called by the loader with an initialised set. */
int hp_read_ascii(hp_profile_set *set, const char *buf, size_t len, hp_error *err);
int hp_read_binary(hp_profile_set *set, const hp_file *f, hp_error *err);

#endif
