/* Folding profiles into stacks of function names. */
#include "cli/render/fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hp_fold_init(hp_folded *f, int kind)
{
    memset(f, 0, sizeof *f);
    hp_profile_init(&f->p, kind, HP_PFMT_ASCII);
}

void hp_fold_free(hp_folded *f)
{
    hp_profile_free(&f->p);
    free(f->line);
    memset(f, 0, sizeof *f);
}

/* The folded frame of one input frame, with its line merged into f->line. */
static uint32_t fold_frame(hp_folded *f, const hp_profile *in, const hp_pframe *src)
{
    const char *name = hp_profile_str(in, src->func);
    hp_pframe x = {.func = hp_profile_string(&f->p, name, strlen(name)),
                   .cls_len = src->cls_len,
                   .kind = src->kind};
    if (x.func == UINT32_MAX) return UINT32_MAX;
    uint32_t before = f->p.nframes, id = hp_profile_frame(&f->p, &x);
    if (id == UINT32_MAX) return UINT32_MAX;
    if (id == before) { /* new */
        if (f->p.nframes > f->line_cap) {
            uint32_t cap = f->p.frames_cap;
            int32_t *l = realloc(f->line, cap * sizeof *l);
            if (!l) return UINT32_MAX;
            f->line = l;
            f->line_cap = cap;
        }
        f->line[id] = src->line > 0 ? src->line : 0;
    } else if (f->line[id] != (src->line > 0 ? src->line : 0)) {
        f->line[id] = -1;
    }
    return id;
}

static uint32_t thread_frame(hp_folded *f, const hp_profile *in, uint32_t thread)
{
    char buf[600];
    const uint64_t *name = hp_idmap_get(&in->thread_names, thread);
    if (name)
        snprintf(buf, sizeof buf, "[thread %.560s]", hp_profile_str(in, (uint32_t)*name));
    else
        snprintf(buf, sizeof buf, "[thread %u]", thread);
    hp_pframe x = {.func = hp_profile_string(&f->p, buf, strlen(buf)), .kind = HP_FK_THREAD};
    return x.func == UINT32_MAX ? UINT32_MAX : fold_frame(f, &f->p, &x);
}

static int fold_stacks(hp_folded *f, const hp_profile *in, const uint32_t *map, int value,
                       int channel, int threads)
{
    uint32_t *frames = NULL, cap = 0;
    int rc = 0;
    for (uint32_t s = 0; s < in->nstacks && rc == 0; s++) {
        const hp_pstack *st = &in->stacks[s];
        uint64_t v[HP_PVALUES] = {0};
        if ((v[channel] = st->v[value]) == 0) continue;
        if (st->depth + 1 > cap) {
            uint32_t *n = realloc(frames, (st->depth + 1) * sizeof *n);
            if (!n) {
                rc = -1;
                break;
            }
            frames = n;
            cap = st->depth + 1;
        }
        uint32_t depth = 0;
        for (uint32_t i = 0; i < st->depth; i++)
            frames[depth++] = map[in->stack_frames[st->first + i]];
        /* stacks of no thread ("[below cutoff]") stay at the root */
        if (threads && st->thread) frames[depth++] = thread_frame(f, in, st->thread);
        if (frames[depth - 1] == UINT32_MAX || hp_profile_add(&f->p, frames, depth, 0, v)) rc = -1;
    }
    free(frames);
    return rc;
}

int hp_fold_add(hp_folded *f, const hp_profile *in, int value, int channel, int threads)
{
    uint32_t *map = malloc((in->nframes ? in->nframes : 1) * sizeof *map);
    if (!map) return -1;
    int rc = 0;
    for (uint32_t i = 0; i < in->nframes && rc == 0; i++)
        if ((map[i] = fold_frame(f, in, &in->frames[i])) == UINT32_MAX) rc = -1;
    if (rc == 0) rc = fold_stacks(f, in, map, value, channel, threads);
    free(map);
    return rc;
}
