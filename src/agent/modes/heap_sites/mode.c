/* heap=sites: allocation sites with allocated and live counts, on the
 * engine the options select (engine.h). */
#include "agent/core/mode.h"
#include "agent/core/agent.h"
#include "agent/modes/heap_sites/engine.h"
#include "agent/modes/heap_sites/report.h"
#include "agent/output/encoder.h"

#include <stdlib.h>
#include <string.h>

static const struct hp_sites_encoder *enc;
static const struct hp_sites_engine *engine;

void hp_sites_live_free(struct hp_sites_live *live)
{
    free(live->objs);
    free(live->bytes);
    memset(live, 0, sizeof *live);
}

static bool on_load(struct hp_setup *s)
{
    engine = hp_sites_exact_selected() ? &hp_sites_exact_engine : &hp_sites_sampled_engine;
    return engine->on_load(s);
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    enc = hp_output_binary() ? &hp_binary_sites_encoder : &hp_ascii_sites_encoder;
    engine->vm_init(jvmti, jni);
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    struct hp_sites_live live = {0};
    engine->count_live(jvmti, jni, &live);
    hp_sites_report_write(enc, &live, &(struct hp_sites_query){hp.opt.cutoff, 0});
    hp_sites_live_free(&live);
}

static void request(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r)
{
    struct hp_sites_live live = {0};
    switch (r->kind) {
    case HP_REQ_SITES:
        engine->count_live(jvmti, jni, &live);
        hp_sites_report_write(enc, &live, &(struct hp_sites_query){r->cutoff, r->flags});
        hp_sites_live_free(&live);
        break;
    case HP_REQ_HEAP_SUMMARY:
        if (enc->heap_summary == NULL) break; /* ascii: no record, so no GC either */
        engine->count_live(jvmti, jni, &live);
        hp_sites_summary_write(enc, &live);
        hp_sites_live_free(&live);
        break;
    case HP_REQ_TRACKING:
    case HP_REQ_CLEAR_SITES:
        engine->control(r);
        break;
    default:
        break;
    }
}

static void thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t,
                         bool current)
{
    (void)jvmti, (void)current;
    if (engine->thread_start) engine->thread_start(jni, thread, t);
}

static void thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, struct hp_thread *t)
{
    (void)thread;
    if (engine->thread_end) engine->thread_end(jvmti, jni, t);
}

static void vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jni;
    engine->vm_death(jvmti);
}

static void stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    engine->stop(jvmti, jni);
}

static bool selected(const struct hp_options *o)
{
    return o->heap_sites;
}

const struct hp_mode hp_mode_heap_sites = {
    .option = "heap=sites",
    .selected = selected,
    .dump_message = " allocation sites ...",
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .dump = dump,
    .vm_death = vm_death,
    .stop = stop,
    .request = request,
};
