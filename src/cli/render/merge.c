/* Merging profile sets. */
#include "cli/render/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hp_merge_is_row(const hp_profile *p, const hp_pstack *st)
{
    return p->frames[p->stack_frames[st->first]].kind != HP_FK_SUMMARY;
}

static uint32_t copy_string(hp_profile *out, const hp_profile *in, uint32_t id)
{
    const char *s = hp_profile_str(in, id);
    return hp_profile_string(out, s, strlen(s));
}

/* Threads are matched by name and rank: the n-th thread of a name in one
 * input (by serial) is the n-th thread of that name in every other. So "main"
 * of every input is one thread, pool threads of one name pair up, and merging
 * a file alone or with itself keeps its threads apart even when two share a
 * name. A thread without a THREAD START is its own. */
typedef struct {
    hp_profile names; /* thread names (string pool only) */
    hp_idmap serial;  /* name id << 32 | rank -> merged serial */
    hp_idmap name_of; /* merged serial -> name id */
    hp_idmap local;   /* the current input's serial -> merged serial */
} thread_map;

typedef struct {
    uint32_t serial, name; /* name: an id in thread_map.names */
} input_thread;

static int by_serial(const void *a, const void *b)
{
    uint32_t x = ((const input_thread *)a)->serial, y = ((const input_thread *)b)->serial;
    return x < y ? -1 : x > y;
}

/* The merged serial of a name and rank, new when not seen before. */
static uint32_t rank_serial(thread_map *t, uint32_t name, uint32_t rank)
{
    uint64_t key = (uint64_t)name << 32 | rank;
    const uint64_t *known = hp_idmap_get(&t->serial, key);
    if (known) return (uint32_t)*known;
    uint32_t serial = 200001 + (uint32_t)t->serial.len;
    if (hp_idmap_put(&t->serial, key, serial) < 0 || hp_idmap_put(&t->name_of, serial, name) < 0)
        return UINT32_MAX;
    return serial;
}

/* Fills t->local with the merged serial of each named thread of one input. */
static int match_threads(thread_map *t, const hp_profile_set *in)
{
    size_t n = 0, cap = 0;
    for (int k = 0; k < HP_PK_NKINDS; k++)
        cap += in->kinds[k].thread_names.len;
    input_thread *v = malloc((cap + 1) * sizeof *v);
    hp_idmap seen = {0}, ranks = {0}; /* serial -> 1; name -> threads of it so far */
    int rc = v ? 0 : -1;
    for (int k = 0; k < HP_PK_NKINDS && rc == 0; k++) {
        const hp_profile *p = &in->kinds[k];
        for (size_t i = 0; i < p->thread_names.cap && rc == 0; i++) {
            if (!p->thread_names.used[i] || hp_idmap_get(&seen, p->thread_names.keys[i])) continue;
            const char *s = hp_profile_str(p, (uint32_t)p->thread_names.vals[i]);
            input_thread th = {(uint32_t)p->thread_names.keys[i],
                               hp_profile_string(&t->names, s, strlen(s))};
            v[n++] = th;
            if (th.name == UINT32_MAX || hp_idmap_put(&seen, th.serial, 1) < 0) rc = -1;
        }
    }
    if (v) qsort(v, n, sizeof *v, by_serial);
    hp_idmap_free(&t->local);
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint64_t *r = hp_idmap_get(&ranks, v[i].name);
        uint32_t rank = r ? (uint32_t)(*r += 1) : 0;
        uint32_t serial = rank_serial(t, v[i].name, rank);
        if ((!r && hp_idmap_put(&ranks, v[i].name, 0) < 0) || serial == UINT32_MAX ||
            hp_idmap_put(&t->local, v[i].serial, serial) < 0)
            rc = -1;
    }
    free(v);
    hp_idmap_free(&seen);
    hp_idmap_free(&ranks);
    return rc;
}

static uint32_t merged_thread(hp_profile *out, thread_map *t, uint32_t thread, int input)
{
    if (thread == 0) return 0;
    const uint64_t *known = hp_idmap_get(&t->local, thread);
    uint32_t serial;
    if (known) {
        serial = (uint32_t)*known;
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "thread %u of input %d", thread, input + 1);
        uint32_t name = hp_profile_string(&t->names, buf, strlen(buf));
        serial = name == UINT32_MAX ? UINT32_MAX : rank_serial(t, name, 0);
    }
    if (serial == UINT32_MAX) return UINT32_MAX;
    const char *s = hp_profile_str(&t->names, (uint32_t)*hp_idmap_get(&t->name_of, serial));
    uint32_t local = hp_profile_string(out, s, strlen(s));
    if (local == UINT32_MAX || hp_idmap_put(&out->thread_names, serial, local) < 0)
        return UINT32_MAX;
    return serial;
}

static int add_profile(hp_profile *out, thread_map *threads, const hp_profile *in, int input)
{
    uint32_t *map = malloc((in->nframes + 1) * sizeof *map), *frames = NULL, cap = 0;
    int rc = map ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < in->nframes; i++) {
        hp_pframe f = in->frames[i];
        f.func = copy_string(out, in, f.func);
        f.sig = copy_string(out, in, f.sig);
        f.source = copy_string(out, in, f.source);
        map[i] = f.func == UINT32_MAX || f.sig == UINT32_MAX || f.source == UINT32_MAX
                     ? UINT32_MAX
                     : hp_profile_frame(out, &f);
        if (map[i] == UINT32_MAX) rc = -1;
    }
    for (uint32_t s = 0; rc == 0 && s < in->nstacks; s++) {
        const hp_pstack *st = &in->stacks[s];
        if (st->depth > cap) {
            uint32_t *n = realloc(frames, st->depth * sizeof *n);
            if (!n) {
                rc = -1;
                break;
            }
            frames = n;
            cap = st->depth;
        }
        for (uint32_t i = 0; i < st->depth; i++)
            frames[i] = map[in->stack_frames[st->first + i]];
        uint32_t thread = merged_thread(out, threads, st->thread, input);
        if (thread == UINT32_MAX || hp_profile_add(out, frames, st->depth, thread, st->v)) rc = -1;
    }
    free(map);
    free(frames);
    return rc;
}

static int same_kinds(const hp_profile_set *in, int n, const char *const *names, hp_error *err)
{
    for (int i = 1; i < n; i++)
        for (int k = 0; k < HP_PK_NKINDS; k++)
            if (in[i].present[k] != in[0].present[k])
                return hp_fail(err, 0, "cannot merge different kinds: %s has %s data, %s has none",
                               in[i].present[k] ? names[i] : names[0], hp_pkind_name(k),
                               in[i].present[k] ? names[0] : names[i]);
    return 0;
}

int hp_merge(hp_profile_set *out, const hp_profile_set *in, int n, const char *const *names,
             hp_error *err)
{
    memset(out, 0, sizeof *out);
    out->format = in[0].format;
    out->want = HP_WANT_ALL;
    for (int k = 0; k < HP_PK_NKINDS; k++)
        hp_profile_init(&out->kinds[k], k, out->format);
    if (same_kinds(in, n, names, err)) return -1;
    thread_map threads = {0};
    hp_profile_init(&threads.names, HP_PK_SAMPLES, HP_PFMT_ASCII);
    int rc = 0;
    for (int k = 0; k < HP_PK_NKINDS; k++) {
        out->present[k] = in[0].present[k];
        out->kinds[k].start_ms = in[0].kinds[k].start_ms;
    }
    for (int i = 0; i < n && rc == 0; i++) {
        rc = match_threads(&threads, &in[i]);
        for (int k = 0; k < HP_PK_NKINDS && rc == 0; k++) {
            if (!out->present[k]) continue;
            rc = add_profile(&out->kinds[k], &threads, &in[i].kinds[k], i);
            if (in[i].kinds[k].duration_ms > out->kinds[k].duration_ms)
                out->kinds[k].duration_ms = in[i].kinds[k].duration_ms;
        }
    }
    hp_profile_free(&threads.names);
    hp_idmap_free(&threads.serial);
    hp_idmap_free(&threads.name_of);
    hp_idmap_free(&threads.local);
    return rc ? hp_fail(err, 0, "out of memory") : 0;
}

uint32_t hp_merge_trace(const hp_profile_set *set, int kind, uint32_t stack)
{
    uint32_t serial = HP_MERGE_FIRST_TRACE;
    for (int k = 0; k < kind; k++)
        serial += set->kinds[k].nstacks;
    return serial + stack;
}

typedef struct {
    const hp_profile *p;
    int value;
} order_ctx;

static int by_value(const void *a, const void *b, void *ctx)
{
    const order_ctx *c = ctx;
    uint64_t x = c->p->stacks[*(const uint32_t *)a].v[c->value];
    uint64_t y = c->p->stacks[*(const uint32_t *)b].v[c->value];
    if (x != y) return x < y ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

uint32_t *hp_merge_rows(const hp_profile *p, int value, uint32_t *n)
{
    uint32_t *rows = malloc((p->nstacks + 1) * sizeof *rows);
    *n = 0;
    for (uint32_t s = 0; rows && s < p->nstacks; s++)
        if (hp_merge_is_row(p, &p->stacks[s])) rows[(*n)++] = s;
    order_ctx c = {p, value};
    if (rows) qsort_r(rows, *n, sizeof *rows, by_value, &c);
    return rows;
}
