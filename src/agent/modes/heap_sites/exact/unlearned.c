/* Sites whose class no object taught. The first `new` of a class loads and
 * initializes it between the site's newObj and its object's Object.<init>;
 * the objects that makes can push the site's pending entry out
 * (HprofSites.drop), so a site run once may never learn its class, and its
 * key would resolve to no site: its count lost (javac: 120 such sites of one
 * object each). At a dump such a site learns the class its `new` resolved:
 * the class of its signature among those the allocating method's loader
 * initiated (GetClassLoaderClasses), and an instance's size from another
 * site of the class, a live instance, or one made by JNI AllocObject (after
 * the dump's heap walks, which would count it). Called only by a dump,
 * under the exact engine's folds lock. */
#include "agent/core/class_lists.h"
#include "agent/core/error.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/bsite.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/tables/class.h"

#include <stdlib.h>
#include <string.h>

/* The size of an instance of `k` from a site that learned it, 0 if none. */
static uint64_t size_from_sites(uint32_t serial)
{
    uint32_t n = hp_bsite_count();
    for (uint32_t i = 0; i < n; i++) {
        struct hp_bsite *b = hp_bsite_get((int32_t)(i << HP_BSITE_SHIFT));
        uint64_t size = b ? atomic_load(&b->instance_size) : 0;
        if (size && atomic_load_explicit(&b->class_serial, memory_order_acquire) == serial)
            return size;
    }
    return 0;
}

/* Whether `k` or a superclass below Object overrides finalize(): an
 * instance made without its constructor would be finalized. */
static bool finalizable(jvmtiEnv *jvmti, JNIEnv *jni, jclass k)
{
    jmethodID fin = (*jni)->GetMethodID(jni, k, "finalize", "()V");
    if (fin == NULL) {
        (*jni)->ExceptionClear(jni);
        return true;
    }
    jclass owner = NULL;
    char *sig = NULL;
    bool plain = (*jvmti)->GetMethodDeclaringClass(jvmti, fin, &owner) == JVMTI_ERROR_NONE &&
                 (*jvmti)->GetClassSignature(jvmti, owner, &sig, NULL) == JVMTI_ERROR_NONE &&
                 strcmp(sig, "Ljava/lang/Object;") == 0;
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (owner) (*jni)->DeleteLocalRef(jni, owner);
    return !plain;
}

/* One instance of `k`, its constructor not run, measured and dropped; only
 * for initialized concrete classes (no class initialization from here)
 * without a finalizer. 0 if not made. */
static uint64_t size_from_instance(jvmtiEnv *jvmti, JNIEnv *jni, jclass k)
{
    jint status = 0, mods = 0;
    if ((*jvmti)->GetClassStatus(jvmti, k, &status) != JVMTI_ERROR_NONE ||
        !(status & JVMTI_CLASS_STATUS_INITIALIZED) ||
        (*jvmti)->GetClassModifiers(jvmti, k, &mods) != JVMTI_ERROR_NONE ||
        (mods & 0x0600) != 0 /* ACC_INTERFACE, ACC_ABSTRACT */ || finalizable(jvmti, jni, k))
        return 0;
    hp_sites_exact_vm_alloc_ignore(true);
    jobject o = (*jni)->AllocObject(jni, k);
    hp_sites_exact_vm_alloc_ignore(false);
    jlong size = 0;
    if (o == NULL || (*jvmti)->GetObjectSize(jvmti, o, &size) != JVMTI_ERROR_NONE) size = 0;
    (*jni)->ExceptionClear(jni);
    if (o) (*jni)->DeleteLocalRef(jni, o);
    return size > 0 ? (uint64_t)size : 0;
}

/* Instance sites learned here whose size no other site knew: sized after
 * the dump's walks (hp_sites_exact_size_unlearned). */
static struct unsized {
    struct hp_bsite *b;
    jclass k; /* global */
} * unsized;
static uint32_t n_unsized, unsized_cap;

static void learn(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_bsite *b, int32_t number, jclass k)
{
    uint32_t serial = hp_class_serial(jvmti, k);
    if (serial == 0) return;
    uint64_t size = 0;
    if ((number & HP_BSITE_KIND_MASK) == HP_BSITE_INSTANCE &&
        (size = size_from_sites(serial)) == 0) {
        if (n_unsized == unsized_cap) {
            uint32_t cap = unsized_cap ? 2 * unsized_cap : 16;
            struct unsized *u = realloc(unsized, cap * sizeof *u);
            if (u == NULL) return;
            unsized = u;
            unsized_cap = cap;
        }
        jclass g = (*jni)->NewGlobalRef(jni, k);
        if (g == NULL) return;
        unsized[n_unsized++] = (struct unsized){b, g};
    }
    atomic_store(&b->instance_size, size);
    atomic_store_explicit(&b->class_serial, serial, memory_order_release);
}

void hp_sites_exact_size_unlearned(jvmtiEnv *jvmti, JNIEnv *jni, const uint64_t *live_objs,
                                   const uint64_t *live_bytes, uint32_t n_classes)
{
    for (uint32_t i = 0; i < n_unsized; i++) {
        struct hp_bsite *b = unsized[i].b;
        uint32_t c = atomic_load(&b->class_serial) - HP_CLASS_SERIAL_BASE;
        /* Every instance of a class has one size: a live one's. */
        uint64_t size = c < n_classes && live_objs[c] ? live_bytes[c] / live_objs[c] : 0;
        if (size == 0) size = size_from_instance(jvmti, jni, unsized[i].k);
        atomic_store(&b->instance_size, size);
        (*jni)->DeleteGlobalRef(jni, unsized[i].k);
    }
    n_unsized = 0;
}

/* The loader of the method that allocates at `b`; false if its class is
 * gone. `*loader` is NULL for the boot loader. */
static bool loader_of(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_bsite *b, jobject *loader)
{
    jmethodID m = hp_instr_method(b->mnum);
    jclass k = NULL;
    if (m == NULL || (*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) != JVMTI_ERROR_NONE)
        return false;
    bool ok = (*jvmti)->GetClassLoader(jvmti, k, loader) == JVMTI_ERROR_NONE;
    (*jni)->DeleteLocalRef(jni, k);
    return ok;
}

/* Matches the classes loaders[from] initiated with the sites of that loader
 * still unlearned, from `from` on; those are then done (known false). */
static void learn_from_loader(jvmtiEnv *jvmti, JNIEnv *jni, const int32_t *numbers,
                              const jobject *loaders, bool *known, uint32_t from, uint32_t n)
{
    jint count = 0;
    jclass *classes = NULL;
    if (!hp_jvmti_ok(jvmti, hp_loader_classes(jvmti, jni, loaders[from], &count, &classes),
                     "GetClassLoaderClasses"))
        return;
    for (jint c = 0; c < count; c++) {
        char *sig = NULL;
        if ((*jvmti)->GetClassSignature(jvmti, classes[c], &sig, NULL) != JVMTI_ERROR_NONE)
            continue;
        for (uint32_t i = from; i < n; i++) {
            struct hp_bsite *b = hp_bsite_get(numbers[i]);
            if (!known[i] || atomic_load(&b->class_serial) || strcmp(sig, b->sig) != 0 ||
                !(*jni)->IsSameObject(jni, loaders[i], loaders[from]))
                continue;
            learn(jvmti, jni, b, numbers[i], classes[c]);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    }
    for (jint c = 0; c < count; c++)
        (*jni)->DeleteLocalRef(jni, classes[c]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    for (uint32_t i = n; i-- > from;)
        if (known[i] && (*jni)->IsSameObject(jni, loaders[i], loaders[from])) known[i] = false;
}

void hp_sites_exact_learn_unlearned(jvmtiEnv *jvmti, JNIEnv *jni, const int32_t *numbers,
                                    uint32_t n)
{
    jobject *loaders = calloc(n ? n : 1, sizeof *loaders);
    bool *known = calloc(n ? n : 1, sizeof *known);
    if (loaders == NULL || known == NULL ||
        (*jni)->PushLocalFrame(jni, (jint)(n < 1000000 ? n : 1000000) + 16) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        free(loaders);
        free(known);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        known[i] = loader_of(jvmti, jni, hp_bsite_get(numbers[i]), &loaders[i]);
    for (uint32_t i = 0; i < n; i++)
        if (known[i]) learn_from_loader(jvmti, jni, numbers, loaders, known, i, n);
    (*jni)->PopLocalFrame(jni, NULL);
    free(loaders);
    free(known);
}
