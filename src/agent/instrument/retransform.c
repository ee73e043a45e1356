#include "agent/instrument/retransform.h"

#include "agent/core/agent.h"
#include "agent/core/class_lists.h"
#include "agent/core/error.h"

#include <stdlib.h>
#include <time.h>

/* Classes per RetransformClasses call: each call is one VM operation at a
 * safepoint, so smaller batches keep every stop of the application short. */
#define BATCH 256

static void report_failure(jvmtiEnv *jvmti, jclass k, const char *what, jvmtiError err)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) != JVMTI_ERROR_NONE) sig = NULL;
    char *err_name = NULL;
    if ((*jvmti)->GetErrorName(jvmti, err, &err_name) != JVMTI_ERROR_NONE) err_name = NULL;
    hp_warn("cannot %s class %s (%s): it is left as it is", what, sig ? sig : "?",
            err_name ? err_name : "JVM TI error");
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (err_name) (*jvmti)->Deallocate(jvmti, (unsigned char *)err_name);
}

/* Errors that no class of a retry would escape: the VM is ending, or the
 * environment cannot retransform at all. */
static bool hopeless(jvmtiError err)
{
    return err == JVMTI_ERROR_WRONG_PHASE || err == JVMTI_ERROR_MUST_POSSESS_CAPABILITY ||
           err == JVMTI_ERROR_INVALID_ENVIRONMENT || err == JVMTI_ERROR_UNATTACHED_THREAD;
}

/* One batch; on failure each class alone, so that one bad class costs only
 * itself. Returns the number retransformed, -1 if retransforming is
 * hopeless. */
static int retransform_batch(jvmtiEnv *jvmti, jclass *classes, jint n, const char *what)
{
    jvmtiError err = (*jvmti)->RetransformClasses(jvmti, n, classes);
    if (err == JVMTI_ERROR_NONE) return n;
    if (hopeless(err)) return hp_jvmti_ok(jvmti, err, "RetransformClasses"), -1;
    int done = 0;
    for (jint i = 0; i < n; i++) {
        err = (*jvmti)->RetransformClasses(jvmti, 1, &classes[i]);
        if (err == JVMTI_ERROR_NONE)
            done++;
        else if (hopeless(err))
            return hp_jvmti_ok(jvmti, err, "RetransformClasses"), -1;
        else
            report_failure(jvmti, classes[i], what, err);
    }
    return done;
}

static bool wanted(jvmtiEnv *jvmti, JNIEnv *jni, jclass k, const jclass *skip, int n_skip)
{
    jboolean modifiable = JNI_FALSE;
    if ((*jvmti)->IsModifiableClass(jvmti, k, &modifiable) != JVMTI_ERROR_NONE || !modifiable)
        return false;
    for (int i = 0; i < n_skip; i++)
        if (skip[i] && (*jni)->IsSameObject(jni, k, skip[i])) return false;
    return true;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The pass itself: the number retransformed. */
static int retransform_all(jvmtiEnv *jvmti, JNIEnv *jni, const jclass *skip, int n_skip,
                           const char *what, int *loaded)
{
    jint n = 0;
    jclass *classes = NULL;
    if (!hp_jvmti_ok(jvmti, hp_loaded_classes(jvmti, jni, &n, &classes), "GetLoadedClasses"))
        return 0;
    *loaded = (int)n;
    /* The wanted classes first, in place; the others' references go now. */
    jint kept = 0;
    for (jint i = 0; i < n; i++) {
        if (wanted(jvmti, jni, classes[i], skip, n_skip))
            classes[kept++] = classes[i];
        else
            (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    int done = 0;
    for (jint at = 0; at < kept; at += BATCH) {
        int k = retransform_batch(jvmti, classes + at, kept - at < BATCH ? kept - at : BATCH, what);
        if (k < 0) break;
        done += k;
    }
    for (jint i = 0; i < kept; i++)
        (*jni)->DeleteLocalRef(jni, classes[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    return done;
}

struct hp_retransform_cost hp_retransform_loaded(jvmtiEnv *jvmti, JNIEnv *jni, const jclass *skip,
                                                 int n_skip, const char *what)
{
    struct hp_retransform_cost c = {0};
    uint64_t wall = hp_mono_ns(), cpu = thread_cpu_ns();
    c.done = retransform_all(jvmti, jni, skip, n_skip, what, &c.loaded);
    c.wall_ns = hp_mono_ns() - wall;
    c.cpu_ns = thread_cpu_ns() - cpu;
    return c;
}
