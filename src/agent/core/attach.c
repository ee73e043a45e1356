/* Agent_OnAttach: `jcmd <pid> JVMTI.agent_load libhprof.so OPTIONS` starts a
 * recording in a running JVM; the single option `stop` ends the recording
 * (attached or started with the JVM), writes the last dump and leaves the
 * JVM as it was, so that a later agent_load can start a new one.
 *
 * A recording owns one JVM TI environment: disposing of it at stop drops
 * every capability, event, callback, tag and thread-local the recording
 * set. Classes the exact modes rewrote are given their own bytes back
 * before that (instrument.h). Attach requests run one at a time
 * on the JVM's Attach Listener. */
#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"
#include "agent/core/class_lists.h"
#include "agent/core/error.h"
#include "agent/core/mode.h"
#include "agent/instrument/instrument.h"
#include "agent/tables/thread.h"

#include <stdlib.h>
#include <string.h>

/* Frees what hp_recording_open kept of the options and the environment. */
static void forget_recording(void)
{
    if (hp.jvmti != NULL)
        hp_jvmti_ok(hp.jvmti, (*hp.jvmti)->DisposeEnvironment(hp.jvmti), "DisposeEnvironment");
    /* Callbacks still running on other threads hold their own jvmtiEnv and
     * read the options: those are replaced by the next recording, not freed. */
    hp.jvmti = NULL;
    hp_set_error_policy(false, false);
}

/* Ends the live recording and returns the JVM to its state before it. */
static jint stop(JNIEnv *jni)
{
    jvmtiEnv *jvmti = hp.jvmti;
    if (jvmti == NULL || !atomic_load(&hp.live)) {
        hp_warn("stop: no hprof recording is running in this JVM");
        return JNI_ERR;
    }
    const char *refusal = hp_instr_stop_refusal();
    if (refusal != NULL) {
        hp_warn("stop: %s; the recording goes on until the JVM exits", refusal);
        return JNI_ERR;
    }
    if (!hp_recording_end(jvmti, jni, true)) return JNI_ERR; /* the VM is exiting */
    if (hp_instr_in_use()) hp_instr_detach(jvmti, jni);
    for (const struct hp_mode *const *m = hp_active_modes(); *m; m++)
        if ((*m)->stop) (*m)->stop(jvmti, jni);
    hp_agent_threads_forget(jni);
    hp_thread_table_reset();
    hp_note("recording stopped, profile written to %s", hp.output_name ? hp.output_name : "?");
    forget_recording();
    return JNI_OK;
}

static int count_loaded_classes(JNIEnv *jni)
{
    jint classes = 0;
    jclass *loaded = NULL;
    if (hp_loaded_classes(hp.jvmti, jni, &classes, &loaded) != JVMTI_ERROR_NONE) return 0;
    for (jint i = 0; i < classes; i++)
        (*jni)->DeleteLocalRef(jni, loaded[i]);
    (*hp.jvmti)->Deallocate(hp.jvmti, (unsigned char *)loaded);
    return (int)classes;
}

static jint start(JavaVM *vm, JNIEnv *jni, const char *options)
{
    if (atomic_load(&hp.live)) {
        hp_warn("already recording into %s: load the agent with the single option 'stop' first; "
                "this request (%s) changed nothing",
                hp.output_name ? hp.output_name : "?", options);
        return JNI_ERR;
    }
    if (atomic_load(&hp.vm_dying)) return JNI_ERR;
    uint64_t began = hp_mono_ns();
    if (!hp_recording_open(vm, options, true)) {
        forget_recording();
        return JNI_ERR;
    }
    /* Rewritten before the tracker is engaged (in going live): a call
     * that began earlier has no entry for its exit to match. */
    struct hp_retransform_cost rewrite = {0};
    if (hp_instr_in_use()) rewrite = hp_instr_attach(hp.jvmti, jni);
    jthread current = NULL;
    if (!hp_jvmti_ok(hp.jvmti, (*hp.jvmti)->GetCurrentThread(hp.jvmti, &current),
                     "GetCurrentThread"))
        current = NULL;
    hp_recording_live(hp.jvmti, jni, current);
    hp_set_error_policy(hp.opt.errorexit, hp.opt.coredump || hp.opt.debug);
    /* What the attach cost: the time the Attach Listener spent here. */
    int loaded = hp_instr_in_use() ? rewrite.loaded : count_loaded_classes(jni);
    hp_verbose("HPROF: attached, recording into %s (%.1f ms, %d classes loaded, %d rewritten in "
               "%.1f ms, %.1f ms of CPU)\n",
               hp.output_name ? hp.output_name : "?", (double)(hp_mono_ns() - began) / 1e6, loaded,
               rewrite.done, (double)rewrite.wall_ns / 1e6, (double)rewrite.cpu_ns / 1e6);
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    const char *text = options ? options : "";
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK) {
        hp_warn("attach: the calling thread has no JNI environment");
        return JNI_ERR;
    }
    /* The Attach Listener thread lives on: free every local reference made here. */
    if ((*jni)->PushLocalFrame(jni, 64) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return JNI_ERR;
    }
    jint rc = strcmp(text, "stop") == 0 ? stop(jni) : start(vm, jni, text);
    (*jni)->PopLocalFrame(jni, NULL);
    return rc;
}
