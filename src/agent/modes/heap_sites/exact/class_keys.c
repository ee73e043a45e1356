/* The tracker's keys for classes (HprofSites.classKey): what it keeps of a
 * class it learned, for a site's objects or a DYN site's derived sites;
 * and the weak references to threads its states keep (HprofSites.weak).
 * A class that can never be unloaded (not hidden, of the boot, platform or
 * system class loader, which live as long as the JVM) is its own key. Any
 * other is held by a WeakReference the agent makes without running Java
 * code (AllocObject, then its queue and referent fields), so that the
 * tracker never keeps a class loaded: held strongly, every class a DYN
 * site saw (hidden classes made by reflection, classes of dropped loaders)
 * stayed loaded to the end of the run (ClassChurn on JDK 25: 23,000
 * classes unloaded at exit instead of 2,300 at each System.gc()). */
#include "agent/core/error.h"
#include "agent/modes/heap_sites/exact/exact.h"

#include <string.h>

static jclass weak_class; /* java.lang.ref.WeakReference (global) */
static jobject no_queue;  /* ReferenceQueue's "no queue" object (global) */
static jfieldID f_referent, f_queue;
static jmethodID m_is_hidden; /* Class.isHidden (JDK 15+), else NULL */
static jobject lasting[2];    /* the platform and system class loaders (global) */

/* ClassLoader's static `name`()Ljava/lang/ClassLoader; as a global reference,
 * NULL if it fails (its classes then get weak keys). */
static jobject loader_from(JNIEnv *jni, jclass cl, const char *name)
{
    jmethodID m = (*jni)->GetStaticMethodID(jni, cl, name, "()Ljava/lang/ClassLoader;");
    jobject l = m ? (*jni)->CallStaticObjectMethod(jni, cl, m) : NULL;
    (*jni)->ExceptionClear(jni);
    jobject g = l ? (*jni)->NewGlobalRef(jni, l) : NULL;
    if (l) (*jni)->DeleteLocalRef(jni, l);
    return g;
}

bool hp_sites_exact_class_keys_init(JNIEnv *jni)
{
    if (weak_class) return true; /* a second recording of an attached agent */
    jclass k = (*jni)->FindClass(jni, "java/lang/ref/WeakReference");
    jclass cls = (*jni)->FindClass(jni, "java/lang/Class");
    if (k == NULL || cls == NULL) goto fail;
    f_referent = (*jni)->GetFieldID(jni, k, "referent", "Ljava/lang/Object;");
    f_queue =
        f_referent ? (*jni)->GetFieldID(jni, k, "queue", "Ljava/lang/ref/ReferenceQueue;") : NULL;
    jmethodID init =
        f_queue ? (*jni)->GetMethodID(jni, k, "<init>", "(Ljava/lang/Object;)V") : NULL;
    if (init == NULL) goto fail;
    /* The queue a reference made without one gets (JDK 25 renamed the
     * field), taken from one made by the constructor while no hook counts. */
    jobject proto = (*jni)->NewObject(jni, k, init, NULL);
    jobject q = proto ? (*jni)->GetObjectField(jni, proto, f_queue) : NULL;
    if (q == NULL || (no_queue = (*jni)->NewGlobalRef(jni, q)) == NULL ||
        (weak_class = (*jni)->NewGlobalRef(jni, k)) == NULL)
        goto fail;
    m_is_hidden = (*jni)->GetMethodID(jni, cls, "isHidden", "()Z");
    (*jni)->ExceptionClear(jni);
    jclass cl = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    if (cl) {
        lasting[0] = loader_from(jni, cl, "getPlatformClassLoader");
        lasting[1] = loader_from(jni, cl, "getSystemClassLoader");
        (*jni)->DeleteLocalRef(jni, cl);
    }
    (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, q);
    (*jni)->DeleteLocalRef(jni, proto);
    (*jni)->DeleteLocalRef(jni, cls);
    (*jni)->DeleteLocalRef(jni, k);
    return true;
fail:
    (*jni)->ExceptionClear(jni);
    hp_error("heap=sites: cannot make weak references to classes");
    return false;
}

/* A hidden class's signature names it with a '.' before its suffix (the
 * JVM's own name has '+', Class.getName "/0x"); an array of one has no
 * isHidden. No other class name has '.' or '+' in a signature. */
static bool looks_hidden(const char *sig)
{
    return strpbrk(sig, ".+") != NULL || strstr(sig, "/0x") != NULL;
}

static bool lasting_loader(JNIEnv *jni, jobject loader)
{
    if (loader == NULL) return true; /* the boot loader */
    bool lasts = false;
    for (int i = 0; i < 2; i++)
        lasts = lasts || (lasting[i] && (*jni)->IsSameObject(jni, loader, lasting[i]));
    (*jni)->DeleteLocalRef(jni, loader);
    return lasts;
}

/* Whether `c` stays loaded for the life of the JVM: a primitive array, or
 * a lasting loader's and not hidden. When unsure, false: a weak key is
 * always right, only slower to compare. */
static bool permanent(jvmtiEnv *jvmti, JNIEnv *jni, jclass c)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, c, &sig, NULL) != JVMTI_ERROR_NONE) return false;
    const char *elem = sig + strspn(sig, "[");
    bool array = elem != sig, primitive = array && *elem != 'L', hidden = looks_hidden(sig);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (primitive) return true;
    jobject loader = NULL;
    if (hidden || (*jvmti)->GetClassLoader(jvmti, c, &loader) != JVMTI_ERROR_NONE ||
        !lasting_loader(jni, loader))
        return false;
    if (array) return true;
    if (m_is_hidden == NULL) return false;
    hidden = (*jni)->CallBooleanMethod(jni, c, m_is_hidden);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return false;
    }
    return !hidden;
}

jobject hp_sites_exact_class_key(jvmtiEnv *jvmti, JNIEnv *jni, jclass c)
{
    if (weak_class == NULL) return NULL;
    return permanent(jvmti, jni, c) ? c : hp_sites_exact_weak(jni, c);
}

jobject hp_sites_exact_weak(JNIEnv *jni, jobject o)
{
    if (weak_class == NULL) return NULL;
    /* Not counted: an allocation of the agent's own. */
    hp_sites_exact_vm_alloc_ignore(true);
    jobject r = (*jni)->AllocObject(jni, weak_class);
    hp_sites_exact_vm_alloc_ignore(false);
    if (r == NULL) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    (*jni)->SetObjectField(jni, r, f_queue, no_queue);
    (*jni)->SetObjectField(jni, r, f_referent, o);
    return r;
}

jobject hp_sites_exact_weak_get(JNIEnv *jni, jobject key)
{
    if (key == NULL || weak_class == NULL || !(*jni)->IsInstanceOf(jni, key, weak_class))
        return key ? (*jni)->NewLocalRef(jni, key) : NULL;
    /* JNI reads a referent as Reference.get does: kept alive, or NULL. */
    return (*jni)->GetObjectField(jni, key, f_referent);
}
