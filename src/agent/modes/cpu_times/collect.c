#include "agent/modes/cpu_times/collect.h"

#include "agent/core/agent.h"
#include "agent/instrument/frames.h"
#include "agent/instrument/instrument.h"
#include "agent/tables/table.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int hp_ct_depth(void)
{
    return hp.opt.cpu_old ? 2 : hp.opt.depth;
}

/* What was reported of one tracker state (one running thread) so far. */
struct snap {
    uint32_t n, cap;
    uint32_t *serial; /* trace serial per local trace, 0: not interned yet */
    uint32_t *count;
    uint64_t *self, *total;
};

/* One state as read now. */
struct reading {
    jint id, n;
    uint32_t thread_serial;
    jint *keys, *count;
    jlong *self, *total;
};

/* What ended threads did since the last dump, keyed by (thread serial with
 * thread=y, the trace's method numbers): a thread's state is read and
 * dropped when it ends, so that thread churn does not keep its memory. */
struct ended_sum {
    uint64_t count, self, total;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* snaps, ended */
static struct snap **snaps;                              /* by state id */
static size_t n_snaps;
static struct hp_table *ended;

static jclass tracker;
static jmethodID m_states, m_retire;
static jfieldID f_thread, f_id, f_n, f_keys, f_count, f_self, f_total;

bool hp_ct_collect_init(JNIEnv *jni, jclass k)
{
    tracker = k;
    m_states = (*jni)->GetStaticMethodID(jni, k, "states", "()[Ljava/lang/HprofTracker;");
    m_retire = (*jni)->GetStaticMethodID(jni, k, "retire", "()Ljava/lang/HprofTracker;");
    f_thread = (*jni)->GetFieldID(jni, k, "thread", "Ljava/lang/Thread;");
    f_id = (*jni)->GetFieldID(jni, k, "id", "I");
    f_n = (*jni)->GetFieldID(jni, k, "nTraces", "I");
    f_keys = (*jni)->GetFieldID(jni, k, "keys", "[I");
    f_count = (*jni)->GetFieldID(jni, k, "count", "[I");
    f_self = (*jni)->GetFieldID(jni, k, "self", "[J");
    f_total = (*jni)->GetFieldID(jni, k, "total", "[J");
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return false;
    }
    ended = hp_table_new(sizeof(struct ended_sum));
    return ended && m_states && m_retire && f_thread && f_id && f_n && f_keys && f_count &&
           f_self && f_total;
}

/* The snapshot of state `id`, created empty; NULL when out of memory. */
static struct snap *snap_get(jint id)
{
    if (id < 0) return NULL;
    if ((size_t)id >= n_snaps) {
        size_t n = n_snaps ? n_snaps : 64;
        while (n <= (size_t)id)
            n *= 2;
        struct snap **a = realloc(snaps, sizeof *a * n);
        if (a == NULL) return NULL;
        memset(a + n_snaps, 0, sizeof *a * (n - n_snaps));
        snaps = a;
        n_snaps = n;
    }
    if (snaps[id] == NULL) snaps[id] = calloc(1, sizeof(struct snap));
    return snaps[id];
}

static bool snap_reserve(struct snap *s, uint32_t n)
{
    if (n <= s->cap) return true;
    uint32_t cap = s->cap ? s->cap : 16;
    while (cap < n)
        cap *= 2;
    uint32_t *serial = realloc(s->serial, sizeof *serial * cap);
    if (serial) s->serial = serial;
    uint32_t *count = realloc(s->count, sizeof *count * cap);
    if (count) s->count = count;
    uint64_t *self = realloc(s->self, sizeof *self * cap);
    if (self) s->self = self;
    uint64_t *total = realloc(s->total, sizeof *total * cap);
    if (total) s->total = total;
    if (!serial || !count || !self || !total) return false;
    size_t k = cap - s->cap;
    memset(s->serial + s->cap, 0, sizeof *serial * k);
    memset(s->count + s->cap, 0, sizeof *count * k);
    memset(s->self + s->cap, 0, sizeof *self * k);
    memset(s->total + s->cap, 0, sizeof *total * k);
    s->cap = cap;
    return true;
}

static void snap_free(jint id)
{
    struct snap *s = snaps[id];
    if (s == NULL) return;
    free(s->serial);
    free(s->count);
    free(s->self);
    free(s->total);
    free(s);
    snaps[id] = NULL;
}

static void reading_free(struct reading *r)
{
    free(r->keys);
    free(r->count);
    free(r->self);
    free(r->total);
}

/* Copies one state's counters; the trace count first, as the tracker
 * publishes grown arrays before a larger count. */
static bool read_state(jvmtiEnv *jvmti, JNIEnv *jni, jobject state, uint32_t serial,
                       struct reading *r)
{
    int d = hp_ct_depth();
    memset(r, 0, sizeof *r);
    r->id = (*jni)->GetIntField(jni, state, f_id);
    r->n = (*jni)->GetIntField(jni, state, f_n);
    if (r->n < 0 || (uint64_t)r->n * (uint64_t)(d ? d : 1) > INT32_MAX) return false;
    r->thread_serial = hp.opt.thread ? serial : 0;
    if (hp.opt.thread && serial == 0) {
        jobject thread = (*jni)->GetObjectField(jni, state, f_thread);
        struct hp_thread *t = thread ? hp_thread_get(jvmti, thread) : NULL;
        r->thread_serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
        if (thread) (*jni)->DeleteLocalRef(jni, thread);
    }
    r->keys = hp_instr_copy_array(jni, state, f_keys, r->n * d, false);
    r->count = hp_instr_copy_array(jni, state, f_count, r->n, false);
    r->self = hp_instr_copy_array(jni, state, f_self, r->n, true);
    r->total = hp_instr_copy_array(jni, state, f_total, r->n, true);
    if (r->keys && r->count && r->self && r->total) return true;
    reading_free(r);
    return false;
}

/* Rows indexed by trace serial - HP_TRACE_SERIAL_BASE. */
struct rows {
    struct hp_ct_row *by_serial;
    size_t cap;
};

static struct hp_ct_row *row_of(struct rows *rs, uint32_t serial)
{
    size_t i = serial - HP_TRACE_SERIAL_BASE;
    if (serial < HP_TRACE_SERIAL_BASE) return NULL;
    if (i >= rs->cap) {
        size_t cap = rs->cap ? rs->cap : 1024;
        while (cap <= i)
            cap *= 2;
        struct hp_ct_row *a = realloc(rs->by_serial, sizeof *a * cap);
        if (a == NULL) return NULL;
        memset(a + rs->cap, 0, sizeof *a * (cap - rs->cap));
        rs->by_serial = a;
        rs->cap = cap;
    }
    rs->by_serial[i].trace = serial;
    return &rs->by_serial[i];
}

/* The trace of method numbers mnums[0..d-1], ended by the first -1. */
static uint32_t trace_of(jvmtiEnv *jvmti, JNIEnv *jni, const jint *mnums, int d,
                         uint32_t thread_serial)
{
    uint32_t n = 0;
    while (n < (uint32_t)d && mnums[n] >= 0)
        n++;
    return hp_instr_trace(jvmti, jni, mnums, n, HP_LINE_FIRST, thread_serial);
}

/* The trace serial of local trace j; cached once made. */
static uint32_t intern(jvmtiEnv *jvmti, JNIEnv *jni, const struct reading *r, struct snap *s,
                       uint32_t j)
{
    if (s->serial[j]) return s->serial[j];
    int d = hp_ct_depth();
    uint32_t serial = trace_of(jvmti, jni, r->keys + (size_t)j * (size_t)d, d, r->thread_serial);
    if (serial != HP_TRACE_EMPTY) s->serial[j] = serial;
    return serial;
}

/* Adds what state r did since the last dump to the rows. */
static void account(jvmtiEnv *jvmti, JNIEnv *jni, struct reading *r, struct rows *rs)
{
    struct snap *s = snap_get(r->id);
    if (s == NULL || !snap_reserve(s, (uint32_t)r->n)) return;
    for (uint32_t j = 0; j < (uint32_t)r->n; j++) {
        uint32_t dc = (uint32_t)r->count[j] - s->count[j];
        uint64_t ds = (uint64_t)r->self[j] - s->self[j], dt = (uint64_t)r->total[j] - s->total[j];
        if (dc == 0 && ds == 0 && dt == 0) continue;
        struct hp_ct_row *row = row_of(rs, intern(jvmti, jni, r, s, j));
        if (row == NULL) continue;
        row->count += dc;
        row->self_ns += ds;
        row->total_ns += dt;
        s->count[j] = (uint32_t)r->count[j];
        s->self[j] = (uint64_t)r->self[j];
        s->total[j] = (uint64_t)r->total[j];
    }
    s->n = (uint32_t)r->n;
}

/* Asks for the methods of traces that are not interned yet. */
static void want_methods(const struct reading *r)
{
    int d = hp_ct_depth();
    struct snap *s = snap_get(r->id);
    for (uint32_t j = 0; j < (uint32_t)r->n; j++)
        if (s == NULL || j >= s->cap || s->serial[j] == 0)
            for (int k = 0; k < d && r->keys[j * d + k] >= 0; k++)
                hp_instr_want(r->keys[j * d + k]);
}

/* Adds what an ending thread did since the last dump to `ended`. */
static void fold_ended(const struct reading *r)
{
    int d = hp_ct_depth();
    size_t key_len = sizeof(uint32_t) + sizeof(jint) * (size_t)d;
    uint32_t *key = malloc(key_len);
    struct snap *s = (size_t)r->id < n_snaps ? snaps[r->id] : NULL;
    for (uint32_t j = 0; key && j < (uint32_t)r->n; j++) {
        bool seen = s && j < s->cap;
        uint32_t dc = (uint32_t)r->count[j] - (seen ? s->count[j] : 0);
        uint64_t ds = (uint64_t)r->self[j] - (seen ? s->self[j] : 0);
        uint64_t dt = (uint64_t)r->total[j] - (seen ? s->total[j] : 0);
        if (dc == 0 && ds == 0 && dt == 0) continue;
        key[0] = r->thread_serial;
        memcpy(key + 1, r->keys + (size_t)j * (size_t)d, sizeof(jint) * (size_t)d);
        uint32_t idx = hp_table_intern(ended, key, key_len, NULL, NULL, NULL);
        struct ended_sum *sum = idx ? hp_table_info(ended, idx) : NULL;
        if (sum == NULL) continue;
        sum->count += dc;
        sum->self += ds;
        sum->total += dt;
    }
    free(key);
}

void hp_ct_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t serial)
{
    if (tracker == NULL) return;
    pthread_mutex_lock(&lock);
    jobject state = (*jni)->CallStaticObjectMethod(jni, tracker, m_retire);
    struct reading r;
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
    } else if (state && read_state(jvmti, jni, state, serial, &r)) {
        fold_ended(&r);
        if ((size_t)r.id < n_snaps) snap_free(r.id);
        reading_free(&r);
    }
    if (state) (*jni)->DeleteLocalRef(jni, state);
    pthread_mutex_unlock(&lock);
}

/* The trace serial of an `ended` key (thread serial, method numbers). */
static uint32_t intern_key(jvmtiEnv *jvmti, JNIEnv *jni, const uint32_t *key, int d)
{
    return trace_of(jvmti, jni, (const jint *)(key + 1), d, key[0]);
}

/* Moves the sums of ended threads into the rows. */
static void drain_ended(jvmtiEnv *jvmti, JNIEnv *jni, struct rows *rs)
{
    int d = hp_ct_depth();
    uint32_t n = hp_table_count(ended);
    for (uint32_t i = 1; i <= n; i++) {
        struct ended_sum *sum = hp_table_info(ended, i);
        size_t len;
        const uint32_t *key = hp_table_key(ended, i, &len);
        if (sum->count || sum->self || sum->total)
            for (int k = 0; k < d && ((const jint *)(key + 1))[k] >= 0; k++)
                hp_instr_want(((const jint *)(key + 1))[k]);
    }
    hp_instr_resolve(jvmti, jni);
    for (uint32_t i = 1; i <= n; i++) {
        struct ended_sum *sum = hp_table_info(ended, i);
        size_t len;
        if (!sum->count && !sum->self && !sum->total) continue;
        struct hp_ct_row *row = row_of(rs, intern_key(jvmti, jni, hp_table_key(ended, i, &len), d));
        if (row == NULL) continue;
        row->count += (uint32_t)sum->count;
        row->self_ns += sum->self;
        row->total_ns += sum->total;
        memset(sum, 0, sizeof *sum);
    }
}

static struct reading *read_all(jvmtiEnv *jvmti, JNIEnv *jni, jint *n_out)
{
    *n_out = 0;
    jobjectArray states = (*jni)->CallStaticObjectMethod(jni, tracker, m_states);
    if ((*jni)->ExceptionCheck(jni) || states == NULL) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jint len = (*jni)->GetArrayLength(jni, states), n = 0;
    struct reading *rd = calloc((size_t)(len ? len : 1), sizeof *rd);
    for (jint i = 0; rd && i < len; i++) {
        jobject st = (*jni)->GetObjectArrayElement(jni, states, i);
        if (st == NULL) continue;
        if (read_state(jvmti, jni, st, 0, &rd[n])) n++;
        (*jni)->DeleteLocalRef(jni, st);
    }
    (*jni)->DeleteLocalRef(jni, states);
    *n_out = n;
    return rd;
}

void hp_ct_collect_forget(void)
{
    pthread_mutex_lock(&lock);
    for (size_t id = 0; id < n_snaps; id++)
        snap_free((jint)id);
    free(snaps);
    snaps = NULL;
    n_snaps = 0;
    hp_table_free(ended);
    ended = NULL;
    tracker = NULL;
    pthread_mutex_unlock(&lock);
}

struct hp_ct_row *hp_ct_collect(jvmtiEnv *jvmti, JNIEnv *jni, size_t *n_out)
{
    *n_out = 0;
    if (tracker == NULL) return NULL;
    jint n;
    struct reading *rd = read_all(jvmti, jni, &n);
    if (rd == NULL) return NULL;
    struct rows rs = {0};
    pthread_mutex_lock(&lock);
    for (jint i = 0; i < n; i++)
        want_methods(&rd[i]);
    hp_instr_resolve(jvmti, jni);
    drain_ended(jvmti, jni, &rs);
    for (jint i = 0; i < n; i++) {
        account(jvmti, jni, &rd[i], &rs);
        reading_free(&rd[i]);
    }
    pthread_mutex_unlock(&lock);
    free(rd);
    /* Compact to the traces that had calls. */
    size_t k = 0;
    for (size_t i = 0; i < rs.cap; i++)
        if (rs.by_serial[i].trace) rs.by_serial[k++] = rs.by_serial[i];
    *n_out = k;
    if (k == 0) {
        free(rs.by_serial);
        return NULL;
    }
    return rs.by_serial;
}
