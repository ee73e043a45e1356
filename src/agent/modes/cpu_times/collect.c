#include "collect.h"

#include "../../core/agent.h"
#include "../../instrument/instrument.h"
#include "../../tables/thread.h"
#include "../../tables/trace.h"
#include "cpu_times.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What was reported of one tracker state (one thread) so far. */
struct snap {
    uint32_t n, cap;
    uint32_t *serial; /* trace serial per local trace, 0: not interned yet */
    uint32_t *count;
    uint64_t *self, *total;
    uint32_t thread_serial; /* set when the thread ended */
};

/* One state as read at this dump. */
struct reading {
    jint id, n;
    bool ended;
    uint32_t thread_serial;
    jint *keys, *count;
    jlong *self, *total;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* snaps */
static struct snap **snaps;                              /* by state id */
static size_t n_snaps;

static jclass tracker;
static jmethodID m_states, m_retire;
static jfieldID f_thread, f_id, f_n, f_keys, f_count, f_self, f_total;

bool hp_ct_collect_init(JNIEnv *jni, jclass k)
{
    tracker = k;
    m_states = (*jni)->GetStaticMethodID(jni, k, "states", "()[Ljava/lang/HprofTracker;");
    m_retire = (*jni)->GetStaticMethodID(jni, k, "retire", "()I");
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
    return m_states && m_retire && f_thread && f_id && f_n && f_keys && f_count && f_self &&
           f_total;
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

void hp_ct_thread_end(JNIEnv *jni, uint32_t serial)
{
    if (tracker == NULL) return;
    jint id = (*jni)->CallStaticIntMethod(jni, tracker, m_retire);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    pthread_mutex_lock(&lock);
    struct snap *s = snap_get(id);
    if (s) s->thread_serial = serial;
    pthread_mutex_unlock(&lock);
}

static void *array_copy(JNIEnv *jni, jobject state, jfieldID f, jint n, bool is_long)
{
    jarray a = (*jni)->GetObjectField(jni, state, f);
    void *out = malloc((is_long ? sizeof(jlong) : sizeof(jint)) * (size_t)(n ? n : 1));
    if (a == NULL || out == NULL || (*jni)->GetArrayLength(jni, a) < n) {
        free(out);
        return NULL;
    }
    if (is_long)
        (*jni)->GetLongArrayRegion(jni, a, 0, n, out);
    else
        (*jni)->GetIntArrayRegion(jni, a, 0, n, out);
    (*jni)->DeleteLocalRef(jni, a);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        free(out);
        return NULL;
    }
    return out;
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
static bool read_state(jvmtiEnv *jvmti, JNIEnv *jni, jobject state, bool ended, struct reading *r)
{
    int d = hp_ct_depth();
    memset(r, 0, sizeof *r);
    r->ended = ended;
    r->id = (*jni)->GetIntField(jni, state, f_id);
    r->n = (*jni)->GetIntField(jni, state, f_n);
    if (r->n < 0 || (uint64_t)r->n * (uint64_t)(d ? d : 1) > INT32_MAX) return false;
    if (hp.opt.thread && !ended) {
        jobject thread = (*jni)->GetObjectField(jni, state, f_thread);
        struct hp_thread *t = thread ? hp_thread_get(jvmti, thread) : NULL;
        r->thread_serial = t ? t->serial : HP_THREAD_SERIAL_UNKNOWN;
        if (thread) (*jni)->DeleteLocalRef(jni, thread);
    }
    r->keys = array_copy(jni, state, f_keys, r->n * d, false);
    r->count = array_copy(jni, state, f_count, r->n, false);
    r->self = array_copy(jni, state, f_self, r->n, true);
    r->total = array_copy(jni, state, f_total, r->n, true);
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

/* The trace serial of local trace j; cached once all its methods are known. */
static uint32_t intern(jvmtiEnv *jvmti, JNIEnv *jni, const struct reading *r, struct snap *s,
                       uint32_t j)
{
    if (s->serial[j]) return s->serial[j];
    int d = hp_ct_depth();
    jvmtiFrameInfo *frames = malloc(sizeof *frames * (size_t)(d ? d : 1));
    jint n = 0;
    if (frames == NULL) return HP_TRACE_EMPTY;
    bool known = true;
    for (int k = 0; k < d && r->keys[j * d + k] >= 0; k++, n++) {
        frames[n].method = hp_instr_method(r->keys[j * d + k]);
        frames[n].location = -1;
        known &= frames[n].method != NULL;
    }
    uint32_t serial = hp_trace_from_frames(jvmti, jni, frames, n, r->thread_serial);
    free(frames);
    if (known) s->serial[j] = serial;
    return serial;
}

/* Adds what state r did since the last dump to the rows. */
static void account(jvmtiEnv *jvmti, JNIEnv *jni, struct reading *r, struct rows *rs)
{
    struct snap *s = snap_get(r->id);
    if (s == NULL || !snap_reserve(s, (uint32_t)r->n)) return;
    if (r->ended) r->thread_serial = s->thread_serial;
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
    bool ended = false;
    for (jint i = 0; rd && i < len; i++) {
        jobject st = (*jni)->GetObjectArrayElement(jni, states, i);
        if (st == NULL) {
            ended = true;
            continue;
        }
        if (read_state(jvmti, jni, st, ended, &rd[n])) n++;
        (*jni)->DeleteLocalRef(jni, st);
    }
    (*jni)->DeleteLocalRef(jni, states);
    *n_out = n;
    return rd;
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
    for (jint i = 0; i < n; i++) {
        account(jvmti, jni, &rd[i], &rs);
        if (rd[i].ended) snap_free(rd[i].id);
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
