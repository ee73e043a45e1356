/* The exact engine's count at a dump: allocated counts per key (tally.c)
 * become the sites' counters once each key is resolved to its site (class
 * and trace), and one heap walk counts the live objects: the tagged ones
 * exactly, the untagged ones estimated per class from the sampled tags. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/instrument/frames.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/bsite.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/modes/heap_sites/weight.h"
#include "agent/tables/class.h"

#include <stdlib.h>
#include <string.h>

/* A key's int after the site when the allocating method is the site's own
 * (window keys, HprofSites.TOP). */
#define KEY_TOP (-2)

/* ---- keys to sites ---- */

static void want_methods(uint32_t n)
{
    int width = hp_key_width();
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t serial;
        const jint *ints = atomic_load(&hp_key_get(k)->site) ? NULL : hp_key_ints(k, &serial);
        const struct hp_bsite *b = ints ? hp_bsite_get(ints[0]) : NULL;
        if (b == NULL) continue;
        hp_instr_want(b->mnum);
        for (int j = 1; j < width; j++)
            if (ints[j] >= 0) hp_instr_want(ints[j]);
    }
}

/* The site of a tracker key: the class of its objects and the trace (the
 * allocating method at the site's line, then the shadow stack's callers at
 * their calls' lines). 0 while its class is unknown. */
static uint32_t resolve(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t k)
{
    int width = hp_key_width();
    uint32_t thread_serial;
    const jint *ints = hp_key_ints(k, &thread_serial);
    const struct hp_bsite *b = ints ? hp_bsite_get(ints[0]) : NULL;
    if (b == NULL) return 0;
    uint32_t cls = atomic_load_explicit(&b->class_serial, memory_order_acquire);
    if (cls == 0) return 0;
    jint mnums[HP_MAX_DEPTH];
    uint32_t n = 0;
    if (hp.opt.depth > 0) {
        mnums[n++] = b->mnum;
        /* Callers only if the shadow stack's top is the allocating method
         * (not so on threads whose older frames predate counting), always
         * from the window (whose key says TOP). */
        if (width > 1 && (hp_instr_method_of(ints[1]) == b->mnum || ints[1] == KEY_TOP))
            for (int j = 2; j < width && ints[j] >= 0 && n < (uint32_t)hp.opt.depth; j++)
                mnums[n++] = ints[j];
    }
    uint32_t trace = hp_instr_trace(jvmti, jni, mnums, n, b->line, thread_serial);
    return hp_site_intern(cls, trace);
}

/* Gives the keys 1..n without a site theirs: those with allocations in `t`,
 * or every key (t NULL). Returns how many with allocations stay without. */
static uint32_t resolve_pass(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n,
                             const struct hp_sites_tally *t)
{
    uint32_t left = 0;
    for (uint32_t k = 1; k <= n; k++) {
        struct hp_key *key = hp_key_get(k);
        uint32_t site = atomic_load(&key->site);
        if (site == 0 && (t == NULL || t[k].objs > 0) && (site = resolve(jvmti, jni, k)) != 0)
            atomic_store(&key->site, site);
        left += site == 0 && t != NULL && t[k].objs > 0;
    }
    return left;
}

/* The sites of the `left` keys with allocations and no site never learned
 * their class: they learn it (unlearned.c). */
static void learn_unlearned(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n,
                            const struct hp_sites_tally *t, uint32_t left)
{
    int32_t *numbers = malloc(left * sizeof *numbers);
    if (numbers == NULL) return;
    uint32_t m = 0;
    for (uint32_t k = 1; k <= n && m < left; k++) {
        uint32_t serial;
        const jint *ints = t[k].objs > 0 && atomic_load(&hp_key_get(k)->site) == 0
                               ? hp_key_ints(k, &serial)
                               : NULL;
        if (ints && hp_bsite_get(ints[0])) numbers[m++] = ints[0];
    }
    hp_sites_exact_learn_unlearned(jvmti, jni, numbers, m);
    free(numbers);
}

/* Gives the keys 1..n their sites: those with allocations in `t`, or every
 * key (t NULL) so that each tagged object's key names its site. */
static void resolve_keys(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, const struct hp_sites_tally *t)
{
    want_methods(n);
    hp_instr_resolve(jvmti, jni);
    uint32_t left = resolve_pass(jvmti, jni, n, t);
    if (left == 0) return;
    learn_unlearned(jvmti, jni, n, t, left);
    resolve_pass(jvmti, jni, n, t);
}

static void resolve_all(jvmtiEnv *jvmti, JNIEnv *jni)
{
    hp_sites_exact_survivors_drain(jvmti, jni); /* after the dump's collection */
    hp_sites_exact_folds_lock();
    resolve_keys(jvmti, jni, hp_key_count(), NULL);
    hp_sites_exact_folds_unlock();
}

static uint32_t site_of_key(uint32_t bits)
{
    const struct hp_key *key = hp_key_get(bits & HP_KEY_MAX);
    return key ? atomic_load_explicit(&key->site, memory_order_relaxed) : HP_SITE_NONE;
}

/* heap=all: tags carry keys, and the heap dump reads their sites. */
const struct hp_site_tags hp_sites_exact_tags = {site_of_key, resolve_all};

/* ---- liveness ---- */

/* Class object tag -> class serial, for the heap walk's class_tag. */
struct class_map {
    jlong *tags;
    uint32_t *serial;
    uint32_t mask;
};

static uint32_t map_slot(const struct class_map *m, jlong tag)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & m->mask;
    while (m->tags[i] != 0 && m->tags[i] != tag)
        i = (i + 1) & m->mask;
    return i;
}

struct walk {
    struct class_map map;
    struct hp_sites_tally *t;
    uint32_t n_keys;
    /* Per class serial - base, below n_classes: untagged live objects. */
    uint32_t n_classes;
    uint64_t *u_objs, *u_bytes;
    bool untagged_only; /* a walk for classes serialled after the first */
};

/* Runs on the VM thread with the world stopped: no locks, no output. */
static jint JNICALL count_live(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                               void *user_data)
{
    (void)length;
    struct walk *w = user_data;
    if (*tag_ptr != 0) {
        if (w->untagged_only) return 0;
        uint32_t bits = hp_objid_site((hp_objid_t)*tag_ptr);
        uint32_t k = bits & HP_KEY_MAX;
        if (k == 0 || k > w->n_keys) return 0;
        w->t[k].live++;
        w->t[k].live_bytes += (uint64_t)size;
        if (bits & HP_KEY_SAMPLED) w->t[k].live_sampled++;
        return 0;
    }
    if (class_tag == 0) return 0;
    uint32_t i = map_slot(&w->map, class_tag);
    if (w->map.tags[i] == 0) return 0;
    uint32_t c = w->map.serial[i] - HP_CLASS_SERIAL_BASE;
    w->u_objs[c]++;
    w->u_bytes[c] += (uint64_t)size;
    return 0;
}

static bool grow(uint64_t **a, uint32_t from, uint32_t to)
{
    uint64_t *p = realloc(*a, ((size_t)to + 1) * sizeof *p);
    if (p == NULL) return false;
    memset(p + from, 0, ((size_t)to + 1 - from) * sizeof *p);
    *a = p;
    return true;
}

/* The walk's map holds the classes of serials base+from .. base+to-1, and
 * their counts start at 0. */
static bool map_classes(struct walk *w, uint32_t from, uint32_t to)
{
    uint32_t cap = 16;
    while (cap < 2 * (to - from) + 2)
        cap *= 2;
    free(w->map.tags);
    free(w->map.serial);
    w->map.tags = calloc(cap, sizeof *w->map.tags);
    w->map.serial = calloc(cap, sizeof *w->map.serial);
    w->map.mask = cap - 1;
    if (!w->map.tags || !w->map.serial || !grow(&w->u_objs, from, to) ||
        !grow(&w->u_bytes, from, to))
        return false;
    for (uint32_t c = from; c < to; c++) {
        const struct hp_class *k = hp_class_get(HP_CLASS_SERIAL_BASE + c);
        if (k == NULL || k->obj == 0) continue;
        uint32_t i = map_slot(&w->map, (jlong)k->obj);
        w->map.tags[i] = (jlong)k->obj;
        w->map.serial[i] = k->serial;
    }
    w->n_classes = to;
    return true;
}

static bool iterate(jvmtiEnv *jvmti, struct walk *w)
{
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = count_live;
    return hp_jvmti_ok(jvmti, (*jvmti)->IterateThroughHeap(jvmti, 0, NULL, &cb, w),
                       "IterateThroughHeap");
}

static bool walk_heap(jvmtiEnv *jvmti, JNIEnv *jni, struct walk *w, uint32_t n_classes)
{
    if (!map_classes(w, 0, n_classes)) return false;
    hp_gc_for_dump(jvmti);
    hp_sites_exact_survivors_drain(jvmti, jni);
    return iterate(jvmti, w);
}

/* Keys whose class got its serial after the walk (sites that learned their
 * class at this dump, unlearned.c): their classes' untagged live objects,
 * in a second walk. */
static bool walk_late_classes(jvmtiEnv *jvmti, struct walk *w, const uint32_t *cls)
{
    uint32_t from = w->n_classes, to = hp_class_count();
    bool late = false;
    for (uint32_t k = 1; k <= w->n_keys && !late; k++)
        late = cls[k] >= HP_CLASS_SERIAL_BASE + from;
    if (!late) return true;
    w->untagged_only = true;
    return map_classes(w, from, to) && iterate(jvmti, w);
}

/* Per class: the untagged live objects are split over the class's keys by
 * their estimated untagged survivors (sampled tags), or by their untagged
 * allocations when no sampled tag survived; never more than a key's untagged
 * allocations, their bytes at the key's mean allocation size. A class
 * allocated at one key only is exact, its bytes too when that key takes all
 * of the class's untagged survivors. */
struct class_sum {
    double est, untagged;
    uint32_t keys;
};

static void estimate(const struct walk *w, uint32_t n_keys, const uint32_t *cls,
                     struct hp_sites_live *live, const uint32_t *site_of)
{
    uint32_t n_classes = w->n_classes;
    struct class_sum *cs = calloc((size_t)n_classes + 1, sizeof *cs);
    double *est = calloc((size_t)n_keys + 1, sizeof *est);
    if (cs == NULL || est == NULL) {
        free(cs);
        free(est);
        return;
    }
    for (uint32_t k = 1; k <= n_keys; k++) {
        if (cls[k] == 0 || cls[k] - HP_CLASS_SERIAL_BASE >= n_classes) continue;
        const struct hp_key *key = hp_key_get(k);
        const struct hp_sites_tally *t = &w->t[k];
        uint64_t tagged = atomic_load(&key->tagged), sampled = atomic_load(&key->sampled);
        double untagged = t->objs > tagged ? (double)(t->objs - tagged) : 0;
        est[k] = sampled ? untagged * (double)t->live_sampled / (double)sampled : 0;
        cs[cls[k] - HP_CLASS_SERIAL_BASE].est += est[k];
        cs[cls[k] - HP_CLASS_SERIAL_BASE].untagged += untagged;
        cs[cls[k] - HP_CLASS_SERIAL_BASE].keys++;
    }
    for (uint32_t k = 1; k <= n_keys; k++) {
        uint32_t site = site_of[k];
        if (site == 0 || site > live->n_sites) continue;
        const struct hp_sites_tally *t = &w->t[k];
        uint64_t objs = t->live, bytes = t->live_bytes;
        uint32_t c = cls[k] - HP_CLASS_SERIAL_BASE;
        if (cls[k] != 0 && c < n_classes && w->u_objs[c] > 0) {
            const struct hp_key *key = hp_key_get(k);
            uint64_t tagged = atomic_load(&key->tagged);
            double untagged = t->objs > tagged ? (double)(t->objs - tagged) : 0;
            double share = cs[c].est > 0        ? est[k] / cs[c].est
                           : cs[c].untagged > 0 ? untagged / cs[c].untagged
                                                : 0;
            double n = share * (double)w->u_objs[c] + 0.5;
            if (n > untagged) n = untagged;
            uint64_t extra = (uint64_t)n;
            objs += extra;
            /* A class's only key that takes all its untagged survivors has
             * their bytes; otherwise the key's own mean size places them (a
             * class's arrays differ in size from site to site, and survivors
             * no key counted, from hidden classes say, move its mean). */
            if (cs[c].keys == 1 && extra == w->u_objs[c])
                bytes += w->u_bytes[c];
            else if (t->objs)
                bytes += (uint64_t)((double)t->bytes * (double)extra / (double)t->objs);
            if (bytes > t->bytes) bytes = t->bytes;
        }
        live->objs[site] += objs * HP_SITE_ONE;
        live->bytes[site] += bytes;
    }
    free(cs);
    free(est);
}

bool hp_sites_exact_collect(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live)
{
    hp_sites_exact_folds_lock();
    uint32_t n_classes = hp_class_count();
    struct walk w = {.n_keys = hp_key_count()};
    struct hp_sites_tallies ts = {.n = w.n_keys};
    ts.t = w.t = calloc((size_t)w.n_keys + 1, sizeof *w.t);
    uint32_t *cls = calloc((size_t)w.n_keys + 1, sizeof *cls);
    uint32_t *site_of = calloc((size_t)w.n_keys + 1, sizeof *site_of);
    bool ok = ts.t && cls && site_of && walk_heap(jvmti, jni, &w, n_classes);
    if (ok) {
        /* After the walk: every live object was allocated before this count. */
        hp_sites_exact_tally_allocated(jvmti, jni, &ts);
        resolve_keys(jvmti, jni, ts.n, ts.t);
        for (uint32_t k = 1; k <= ts.n; k++) {
            site_of[k] = atomic_load(&hp_key_get(k)->site);
            cls[k] = hp_site_class_serial(site_of[k]);
        }
        ok = walk_late_classes(jvmti, &w, cls);
        hp_sites_exact_size_unlearned(jvmti, jni, w.u_objs, w.u_bytes, w.n_classes);
        live->n_sites = hp_site_count();
        live->objs = calloc((size_t)live->n_sites + 1, sizeof *live->objs);
        live->bytes = calloc((size_t)live->n_sites + 1, sizeof *live->bytes);
        uint64_t *objs = calloc((size_t)live->n_sites + 1, sizeof *objs);
        uint64_t *bytes = calloc((size_t)live->n_sites + 1, sizeof *bytes);
        ok = ok && live->objs && live->bytes && objs && bytes;
        if (ok) {
            for (uint32_t k = 1; k <= ts.n; k++) {
                if (site_of[k] == 0 || site_of[k] > live->n_sites) continue;
                uint64_t b = ts.t[k].bytes;
                uint32_t serial;
                const jint *ints = hp_key_ints(k, &serial);
                const struct hp_bsite *bs = ints ? hp_bsite_get(ints[0]) : NULL;
                if (bs && (ints[0] & HP_BSITE_KIND_MASK) == HP_BSITE_INSTANCE)
                    b = ts.t[k].objs * atomic_load(&bs->instance_size);
                ts.t[k].bytes = b;
                objs[site_of[k]] += ts.t[k].objs;
                bytes[site_of[k]] += b;
            }
            for (uint32_t s = 1; s <= live->n_sites; s++) {
                struct hp_site *site = hp_site_get(s);
                if (site == NULL) continue;
                atomic_store(&site->alloc_objs, objs[s] * HP_SITE_ONE);
                atomic_store(&site->alloc_bytes, bytes[s]);
            }
            estimate(&w, ts.n, cls, live, site_of);
        }
        free(objs);
        free(bytes);
    }
    hp_sites_exact_folds_unlock();
    if (!ok) {
        hp_error("out of memory counting allocation sites");
        hp_sites_live_free(live);
    }
    free(w.map.tags);
    free(w.map.serial);
    free(w.u_objs);
    free(w.u_bytes);
    free(ts.t);
    free(cls);
    free(site_of);
    return ok;
}
