#include "agent/tables/trace.h"

#include "agent/core/agent.h"
#include "agent/io/writer.h"
#include "agent/output/encoder.h"
#include "agent/tables/frame.h"
#include "agent/tables/method.h"
#include "agent/tables/table.h"

#include <stdlib.h>
#include <string.h>

/* jvmtiFrameInfo arrays on the stack are bounded; deeper requests are cut. */

static struct hp_table *traces;

void hp_trace_table_init(void)
{
    traces = hp_table_new(sizeof(struct hp_trace));
    hp_trace_intern(0, NULL, 0);
}

static void init_trace(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)ctx;
    const uint32_t *k = key;
    struct hp_trace *t = info;
    t->serial = HP_TRACE_SERIAL_BASE + hp_table_count(traces);
    t->thread_serial = k[0];
    t->n_frames = (uint32_t)(key_len / sizeof(uint32_t) - 1);
    t->frames = k + 1;
    atomic_init(&t->written, false);
}

uint32_t hp_trace_intern(uint32_t thread_serial, const uint32_t *frame_ids, uint32_t n)
{
    uint32_t key[HP_MAX_DEPTH + 1];
    if (n > HP_MAX_DEPTH) n = HP_MAX_DEPTH;
    key[0] = hp.opt.thread ? thread_serial : 0;
    if (n) memcpy(key + 1, frame_ids, n * sizeof *key);
    uint32_t idx = hp_table_intern(traces, key, (n + 1) * sizeof *key, init_trace, NULL, NULL);
    return idx ? HP_TRACE_SERIAL_BASE + idx - 1 : HP_TRACE_EMPTY;
}

/* How many top frames belong to the agent's own Java code: its methods, and
 * the few JDK methods they call above them. A trace starts at the user's
 * frame that called into the agent, which is charged with its cost. Agent
 * code calls no user code, so nothing of it lies deeper. */
jint hp_trace_agent_frames(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *f, jint n)
{
    jint cut = 0;
    for (jint i = 0; i < n; i++) {
        if (hp_method_get(jvmti, jni, f[i].method)->agent)
            cut = i + 1;
        else if (cut > 0 || i >= 3)
            break;
    }
    return cut;
}

uint32_t hp_trace_from_frames(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *frames, jint n,
                              uint32_t thread_serial)
{
    uint32_t ids[HP_MAX_DEPTH];
    uint32_t kept = 0;
    for (jint i = hp_trace_agent_frames(jvmti, jni, frames, n); i < n && kept < HP_MAX_DEPTH; i++) {
        uint32_t id = hp_frame_intern(jvmti, jni, frames[i].method, frames[i].location);
        if (id) ids[kept++] = id;
    }
    return hp_trace_intern(thread_serial, ids, kept);
}

uint32_t hp_trace_capture(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jint skip,
                          uint32_t thread_serial)
{
    jint want = atomic_load_explicit(&hp.trace_depth, memory_order_relaxed);
    jint depth = want < HP_MAX_DEPTH ? want : HP_MAX_DEPTH;
    if (depth == 0) return hp_trace_intern(thread_serial, NULL, 0);
    jvmtiFrameInfo frames[HP_MAX_DEPTH];
    jint n = 0;
    if ((*jvmti)->GetStackTrace(jvmti, thread, skip, depth, frames, &n) != JVMTI_ERROR_NONE)
        return HP_TRACE_EMPTY;
    return hp_trace_from_frames(jvmti, jni, frames, n, thread_serial);
}

const struct hp_trace *hp_trace_get(uint32_t serial)
{
    if (serial < HP_TRACE_SERIAL_BASE) return NULL;
    return hp_table_info(traces, serial - HP_TRACE_SERIAL_BASE + 1);
}

void hp_trace_write(uint32_t serial)
{
    struct hp_trace *t = (struct hp_trace *)hp_trace_get(serial);
    if (t == NULL || atomic_load(&t->written)) return;
    /* Holding the stream makes "check, write, mark" atomic against other writers. */
    hp_out_lock();
    if (!atomic_load(&t->written)) {
        hp_encoder()->trace(t);
        atomic_store(&t->written, true);
    }
    hp_out_unlock();
}

void hp_trace_write_unwritten(void)
{
    uint32_t n = hp_table_count(traces);
    for (uint32_t idx = 1; idx <= n; idx++)
        hp_trace_write(HP_TRACE_SERIAL_BASE + idx - 1);
}
