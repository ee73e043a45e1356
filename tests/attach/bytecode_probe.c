/* A JVM TI agent for the attach tests: `jcmd <pid> JVMTI.agent_load
 * libbytecode_probe.so CLASS.METHOD` prints "PROBE CLASS.METHOD <length>" on
 * the target's standard error, the length of the method's bytecodes as the
 * JVM runs them now (-1 if not found). A class hprof rewrote has longer
 * methods; one it restored has its own length again. */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

/* The length of method `name` of the loaded class of signature `sig`. */
static jint method_length(jvmtiEnv *jvmti, jclass k, const char *name)
{
    jint n = 0, len = -1;
    jmethodID *methods = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, k, &n, &methods) != JVMTI_ERROR_NONE) return -1;
    for (jint i = 0; i < n && len < 0; i++) {
        char *mname = NULL;
        if ((*jvmti)->GetMethodName(jvmti, methods[i], &mname, NULL, NULL) != JVMTI_ERROR_NONE)
            continue;
        unsigned char *code = NULL;
        jint code_len = 0;
        if (strcmp(mname, name) == 0 &&
            (*jvmti)->GetBytecodes(jvmti, methods[i], &code_len, &code) == JVMTI_ERROR_NONE) {
            len = code_len;
            (*jvmti)->Deallocate(jvmti, code);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)mname);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
    return len;
}

static jint probe(jvmtiEnv *jvmti, JNIEnv *jni, const char *cls, const char *name)
{
    char want[256];
    snprintf(want, sizeof want, "L%s;", cls);
    jint n = 0, len = -1;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE) return -1;
    for (jint i = 0; i < n; i++) {
        char *sig = NULL;
        if (len < 0 &&
            (*jvmti)->GetClassSignature(jvmti, classes[i], &sig, NULL) == JVMTI_ERROR_NONE) {
            if (strcmp(sig, want) == 0) len = method_length(jvmti, classes[i], name);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        }
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    return len;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char cls[200];
    const char *dot = options ? strrchr(options, '.') : NULL;
    if (dot == NULL || (size_t)(dot - options) >= sizeof cls) return JNI_ERR;
    memcpy(cls, options, (size_t)(dot - options));
    cls[dot - options] = '\0';
    jvmtiEnv *jvmti = NULL;
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK ||
        (*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
        return JNI_ERR;
    jvmtiCapabilities caps = {.can_get_bytecodes = 1};
    jint len = (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE
                   ? probe(jvmti, jni, cls, dot + 1)
                   : -1;
    fprintf(stderr, "PROBE %s %d\n", options, (int)len);
    fflush(stderr);
    (*jvmti)->DisposeEnvironment(jvmti);
    return JNI_OK;
}
