/*
 * The profile model shared by every profile command: interned strings,
 * frames and stacks with up to four values each, read from ascii
 * (java.hprof.txt) or binary (format=b) files alike. Identical frames and
 * stacks are stored once, so memory grows with the number of distinct
 * stacks, not with the size of the file.
 */
#ifndef HPROF_CLI_PROFILE_PROFILE_H
#define HPROF_CLI_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "cli/profile/itab.h"
#include "cli/readers/idmap.h"

/* What the profile counts; each file section kind becomes one profile. */
enum hp_pkind {
    HP_PK_SAMPLES, /* CPU SAMPLES: samples */
    HP_PK_TIMES,   /* CPU TIME (ms): calls, self time */
    HP_PK_OLD,     /* cpu=old: calls, inclusive time of callee/caller pairs */
    HP_PK_SITES,   /* SITES: allocated and live objects and bytes */
    HP_PK_NKINDS
};

/* Kinds of frame, for colour and for the renderers' own frames. A frame
 * whose class is bracketed, "[GC]" or "<GC>" (no Java class name starts with
 * '[' or '<'), is a pseudo-frame the agent writes for time outside Java code:
 * its kind comes from the word inside (GC, JIT, unwalkable; anything else VM). */
enum hp_fkind {
    HP_FK_USER,       /* application Java code */
    HP_FK_JDK,        /* java., javax., jdk., sun., com.sun. */
    HP_FK_NATIVE,     /* native method (line -3 / "Native method") */
    HP_FK_SUMMARY,    /* hprof's own: "[below cutoff]", the root, merged narrow frames */
    HP_FK_UNWALKABLE, /* "[empty trace]", unknown class or method, "[unwalkable]" */
    HP_FK_ALLOC,      /* the allocated class at the top of a SITES stack */
    HP_FK_THREAD,     /* "[thread NAME]" roots of per-thread trees */
    HP_FK_GC,         /* pseudo-frames "[GC]..." */
    HP_FK_JIT,        /* pseudo-frames "[JIT]..." */
    HP_FK_VM,         /* pseudo-frames "[VM]..." and other bracketed classes */
    HP_FK_NKINDS,
    HP_FK_AUTO = 255 /* to hp_profile_frame(): derive USER, JDK or NATIVE from name and line */
};

enum { HP_PFMT_ASCII, HP_PFMT_BINARY };

#define HP_PVALUES 4
#define HP_LINE_UNKNOWN 0 /* binary "no line information" and ascii "Unknown line" */
#define HP_LINE_COMPILED (-2)
#define HP_LINE_NATIVE (-3)

typedef struct {
    uint32_t func;    /* string "Class.method" (or a pseudo-frame's name) */
    uint32_t cls_len; /* bytes of func before ".method"; 0 for pseudo-frames */
    uint32_t sig;     /* JVM signature string, 0 ("") when the file has none */
    uint32_t source;  /* source file string, 0 when unknown */
    int32_t line;     /* > 0, or one of HP_LINE_* */
    uint8_t kind;     /* enum hp_fkind */
} hp_pframe;

typedef struct {
    uint64_t first;  /* into hp_profile.stack_frames; leaf first, as in TRACE */
    uint32_t depth;  /* >= 1 */
    uint32_t thread; /* thread serial, 0 when the profile has no thread=y */
    uint64_t v[HP_PVALUES];
} hp_pstack;

typedef struct {
    int kind;   /* enum hp_pkind */
    int format; /* HP_PFMT_*: merge writes the input's own format */
    int nvalues;
    /* strings: NUL-terminated in one arena; id 0 is "" */
    char *arena;
    size_t arena_len, arena_cap;
    uint64_t *str_at;
    uint32_t nstrings, str_cap;
    hp_itab str_tab;
    hp_pframe *frames;
    uint32_t nframes, frames_cap;
    hp_itab frame_tab;
    uint32_t *stack_frames;
    uint64_t nstack_frames, stack_frames_cap;
    hp_pstack *stacks;
    uint32_t nstacks, stacks_cap;
    hp_itab stack_tab;
    hp_idmap thread_names;      /* thread serial -> string id */
    int per_thread;             /* some trace has a thread serial (thread=y) */
    uint64_t total[HP_PVALUES]; /* always the sum over stacks */
    uint64_t start_ms;          /* profile start, ms since the epoch (0 unknown) */
    uint64_t duration_ms;       /* start to the last report (0 unknown) */
} hp_profile;

typedef struct {
    const char *name; /* selector: --value NAME */
    const char *unit;
} hp_pvalue;

void hp_profile_init(hp_profile *p, int kind, int format);
void hp_profile_free(hp_profile *p);

/* Interns bytes as a string (NUL bytes become '?'). UINT32_MAX when out of memory. */
uint32_t hp_profile_string(hp_profile *p, const char *s, size_t n);
static inline const char *hp_profile_str(const hp_profile *p, uint32_t id)
{
    return p->arena + p->str_at[id];
}
/* Interns a frame; a kind of HP_FK_AUTO is derived from its name and line. */
uint32_t hp_profile_frame(hp_profile *p, const hp_pframe *f);
/* A pseudo-frame named `name` of kind `kind`. */
uint32_t hp_profile_pseudo(hp_profile *p, const char *name, int kind);
/* Adds values to the stack (frames leaf first), creating it if new. 0 or -1 (OOM). */
int hp_profile_add(hp_profile *p, const uint32_t *frames, uint32_t depth, uint32_t thread,
                   const uint64_t v[HP_PVALUES]);
/* The same in steps, for readers of large files: a stack's hash, so that its
 * table slot can be prefetched while the next stack is read (with a million
 * distinct stacks, waiting for that cache line was a large share of a load);
 * the stack's index (UINT32_MAX when out of memory), which a reader can keep
 * for a trace cited again; and values added to a stack. */
uint64_t hp_profile_stack_hash(const uint32_t *frames, uint32_t depth, uint32_t thread);
void hp_profile_prefetch(const hp_profile *p, uint64_t hash);
uint32_t hp_profile_stack(hp_profile *p, const uint32_t *frames, uint32_t depth, uint32_t thread,
                          uint64_t hash);
void hp_profile_count(hp_profile *p, uint32_t stack, const uint64_t v[HP_PVALUES]);
/* Adds "[below cutoff]" with the part of each stated total the rows do not
 * account for, so that totals equal what the file states. 0 or -1. */
int hp_profile_settle(hp_profile *p, const uint64_t stated[HP_PVALUES]);

const char *hp_pkind_name(int kind);
/* The value columns of a kind; returns how many (1..4). */
int hp_pkind_values(int kind, const hp_pvalue **out);
/* Index of a value selector for the kind, or -1. */
int hp_pkind_value_index(int kind, const char *name);

#endif
