#include "dump.h"

#include "../io/writer.h"
#include "../output/encoder.h"
#include "../tables/class.h"
#include "error.h"
#include "mode.h"

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
    for (size_t i = 0; modes[i]; i++) {
        if (modes[i]->dump_message) hp_verbose("%s", modes[i]->dump_message);
        if (modes[i]->dump) modes[i]->dump(jvmti, jni);
    }
    for (size_t i = 0; modes[i]; i++)
        if (modes[i]->reset) modes[i]->reset();
    hp_out_flush();
    hp_verbose(" done.\n");
    pthread_mutex_unlock(&dump_lock);
}
