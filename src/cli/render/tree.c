/* Call trees built from profiles. */
#include "render/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hp_tree_init(hp_tree *t, int inverted)
{
    memset(t, 0, sizeof *t);
    t->inverted = inverted;
    hp_profile_init(&t->names, HP_PK_SAMPLES, HP_PFMT_ASCII);
    t->nodes = calloc(64, sizeof *t->nodes);
    if (!t->nodes) return -1;
    t->cap = 64;
    t->count = 1;
    t->nodes[0] = (hp_tnode){
        .kind = HP_FK_VM, .parent = UINT32_MAX, .child = UINT32_MAX, .sibling = UINT32_MAX};
    return 0;
}

void hp_tree_free(hp_tree *t)
{
    hp_profile_free(&t->names);
    free(t->nodes);
    hp_itab_free(&t->tab);
    memset(t, 0, sizeof *t);
}

typedef struct {
    const hp_tree *t;
    uint32_t parent, name;
    uint8_t kind;
} child_key;

static int child_eq(const void *ctx, uint32_t i)
{
    const child_key *k = ctx;
    const hp_tnode *n = &k->t->nodes[i];
    return n->parent == k->parent && n->name == k->name && n->kind == k->kind;
}

static uint32_t child(hp_tree *t, uint32_t parent, uint32_t name, uint8_t kind, int32_t line)
{
    uint32_t key[3] = {parent, name, kind};
    uint64_t h = hp_hash_bytes(key, sizeof key, 7);
    child_key k = {t, parent, name, kind};
    uint32_t id = hp_itab_find(&t->tab, h, child_eq, &k);
    if (id != UINT32_MAX) {
        if (t->nodes[id].line != line) t->nodes[id].line = HP_TREE_LINES_VARY;
        return id;
    }
    if (t->count == t->cap) {
        if (t->cap >= UINT32_MAX / 2) return UINT32_MAX;
        hp_tnode *n = realloc(t->nodes, t->cap * 2 * sizeof *n);
        if (!n) return UINT32_MAX;
        t->nodes = n;
        t->cap *= 2;
    }
    if (hp_itab_add(&t->tab, h, t->count)) return UINT32_MAX;
    hp_tnode *p = &t->nodes[parent];
    t->nodes[t->count] = (hp_tnode){.name = name,
                                    .kind = kind,
                                    .line = line,
                                    .parent = parent,
                                    .child = UINT32_MAX,
                                    .sibling = p->child};
    p->child = t->count;
    return t->count++;
}

/* Tree string ids of every frame of p, so names are hashed once per frame. */
static uint32_t *frame_names(hp_tree *t, const hp_profile *p)
{
    uint32_t *ids = malloc((p->nframes ? p->nframes : 1) * sizeof *ids);
    for (uint32_t i = 0; ids && i < p->nframes; i++) {
        const char *s = hp_profile_str(p, p->frames[i].func);
        ids[i] = hp_profile_string(&t->names, s, strlen(s));
        if (ids[i] == UINT32_MAX) {
            free(ids);
            return NULL;
        }
    }
    return ids;
}

static uint32_t thread_node(hp_tree *t, const hp_profile *p, uint32_t thread)
{
    char buf[600];
    const uint64_t *name = hp_idmap_get(&p->thread_names, thread);
    if (name)
        snprintf(buf, sizeof buf, "[thread %.560s]", hp_profile_str(p, (uint32_t)*name));
    else
        snprintf(buf, sizeof buf, "[thread %u]", thread);
    uint32_t s = hp_profile_string(&t->names, buf, strlen(buf));
    return s == UINT32_MAX ? UINT32_MAX : child(t, 0, s, HP_FK_THREAD, 0);
}

int hp_tree_add(hp_tree *t, const hp_profile *p, int value, int channel, int threads)
{
    uint32_t *names = frame_names(t, p);
    if (!names) return -1;
    for (uint32_t s = 0; s < p->nstacks; s++) {
        const hp_pstack *st = &p->stacks[s];
        uint64_t v = st->v[value];
        if (v == 0) continue;
        uint32_t node = threads ? thread_node(t, p, st->thread) : 0;
        t->nodes[0].total[channel] += v;
        if (node != UINT32_MAX && node) t->nodes[node].total[channel] += v;
        for (uint32_t i = 0; i < st->depth && node != UINT32_MAX; i++) {
            /* frames are leaf first: the normal tree walks them backwards */
            uint32_t at = t->inverted ? i : st->depth - 1 - i;
            const hp_pframe *f = &p->frames[p->stack_frames[st->first + at]];
            node = child(t, node, names[p->stack_frames[st->first + at]], f->kind, f->line);
            if (node != UINT32_MAX) t->nodes[node].total[channel] += v;
        }
        if (node == UINT32_MAX) {
            free(names);
            return -1;
        }
        t->nodes[node].self[channel] += v;
    }
    free(names);
    return 0;
}
