#include "agent/core/agent_thread.h"

#include "agent/core/error.h"

#include <pthread.h>

#define MAX_AGENT_THREADS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static jobject started[MAX_AGENT_THREADS]; /* global refs */
static int n_started;

static jthread new_thread(JNIEnv *jni, const char *name)
{
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = init ? (*jni)->NewStringUTF(jni, name) : NULL;
    jthread t = jname ? (*jni)->NewObject(jni, cls, init, jname) : NULL;
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        t = NULL;
    }
    if (jname) (*jni)->DeleteLocalRef(jni, jname);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    return t;
}

bool hp_agent_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction fn,
                           void *arg)
{
    jthread t = new_thread(jni, name);
    if (t == NULL) {
        hp_error("cannot create agent thread %s", name);
        return false;
    }
    /* Registered before it runs, so its ThreadStart already knows it. */
    pthread_mutex_lock(&lock);
    bool room = n_started < MAX_AGENT_THREADS;
    if (room) started[n_started++] = (*jni)->NewGlobalRef(jni, t);
    pthread_mutex_unlock(&lock);
    if (!room) {
        hp_error("cannot create agent thread %s: too many agent threads", name);
        (*jni)->DeleteLocalRef(jni, t);
        return false;
    }
    jvmtiError err = (*jvmti)->RunAgentThread(jvmti, t, fn, arg, JVMTI_THREAD_MAX_PRIORITY);
    (*jni)->DeleteLocalRef(jni, t);
    return hp_jvmti_ok(jvmti, err, "RunAgentThread");
}

void hp_agent_threads_forget(JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_started; i++)
        if (started[i]) (*jni)->DeleteGlobalRef(jni, started[i]);
    n_started = 0;
    pthread_mutex_unlock(&lock);
}

bool hp_is_agent_thread(JNIEnv *jni, jthread thread)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_started && !found; i++)
        found = started[i] && (*jni)->IsSameObject(jni, started[i], thread);
    pthread_mutex_unlock(&lock);
    return found;
}
