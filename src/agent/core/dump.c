#include "agent/core/dump.h"

#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/core/mode.h"
#include "agent/io/writer.h"
#include "agent/output/encoder.h"
#include "agent/tables/class.h"

#include <pthread.h>

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;

void hp_dump_all(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&dump_lock);
    const struct hp_mode *const *modes = hp_active_modes();
    hp_verbose("Dumping");
    /* Binary readers need LOAD CLASS for array classes (no ClassLoad event)
     * and UNLOAD CLASS for classes gone since the last dump. */
    if (hp_output_binary()) hp_class_resync(jvmti, jni);
    hp_gc_one_per_dump(true);
    for (size_t i = 0; modes[i]; i++) {
        if (modes[i]->dump_message) hp_verbose("%s", modes[i]->dump_message);
        if (modes[i]->dump) modes[i]->dump(jvmti, jni);
    }
    hp_gc_one_per_dump(false);
    for (size_t i = 0; modes[i]; i++)
        if (modes[i]->reset) modes[i]->reset();
    hp_out_flush();
    hp_verbose(" done.\n");
    pthread_mutex_unlock(&dump_lock);
}

void hp_dump_heap(jvmtiEnv *jvmti, JNIEnv *jni)
{
    pthread_mutex_lock(&dump_lock);
    for (const struct hp_mode *const *m = hp_active_modes(); *m; m++) {
        if (!(*m)->writes_heap_dump) continue;
        if (hp_output_binary()) hp_class_resync(jvmti, jni);
        (*m)->dump(jvmti, jni);
    }
    hp_out_flush();
    pthread_mutex_unlock(&dump_lock);
}

void hp_dump_request(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_request *r)
{
    pthread_mutex_lock(&dump_lock);
    /* Reports cite classes: array classes need their LOAD CLASS first. */
    if (hp_output_binary() && (r->kind == HP_REQ_SITES || r->kind == HP_REQ_CPU_SAMPLES))
        hp_class_resync(jvmti, jni);
    for (const struct hp_mode *const *m = hp_active_modes(); *m; m++)
        if ((*m)->request) (*m)->request(jvmti, jni, r);
    hp_out_flush();
    pthread_mutex_unlock(&dump_lock);
}
