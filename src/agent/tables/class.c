#include "agent/tables/class.h"

#include "agent/core/class_lists.h"
#include "agent/core/error.h"
#include "agent/core/jvmti_string.h"
#include "agent/io/writer.h"
#include "agent/output/encoder.h"
#include "agent/tables/names.h"
#include "agent/tables/table.h"

#include <stdlib.h>
#include <string.h>

static struct hp_table *classes;
/* Tagging and LOAD CLASS happen under the output lock (hp_out_lock): a class
 * is announced once, before any record that names its serial, and the lock
 * order "output, then table" holds for every writer. */
static uint32_t generation;

void hp_class_table_init(void)
{
    classes = hp_table_new(sizeof(struct hp_class));
}

struct class_init {
    struct hp_class *made;
    char *sig, *source;
    hp_objid_t obj;
};

static void init_class(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key;
    (void)key_len;
    struct class_init *ci = ctx;
    struct hp_class *c = info;
    c->serial = HP_CLASS_SERIAL_BASE + hp_table_count(classes); /* count includes this entry */
    c->obj = ci->obj;
    c->sig = ci->sig;
    c->name = hp_sig_to_name(ci->sig);
    c->source = ci->source;
    c->generation = generation;
    ci->made = c;
}

uint32_t hp_class_serial(jvmtiEnv *jvmti, jclass klass)
{
    if (klass == NULL || classes == NULL) return 0;
    jlong tag = 0;
    if ((*jvmti)->GetTag(jvmti, klass, &tag) != JVMTI_ERROR_NONE) return 0;
    if (tag != 0) {
        uint32_t serial = hp_class_find((hp_objid_t)tag);
        if (serial) return serial;
    }
    hp_out_lock();
    hp_objid_t obj = hp_objid_of(jvmti, klass);
    uint32_t serial = obj ? hp_class_find(obj) : 0;
    if (obj && !serial) {
        char *sig = NULL, *source = NULL;
        if (hp_jvmti_ok(jvmti, (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL),
                        "GetClassSignature")) {
            if ((*jvmti)->GetSourceFileName(jvmti, klass, &source) != JVMTI_ERROR_NONE)
                source = NULL;
            struct class_init ci = {NULL, hp_take_jvmti_string(jvmti, sig),
                                    hp_take_jvmti_string(jvmti, source), obj};
            uint32_t idx = hp_table_intern(classes, &obj, sizeof obj, init_class, &ci, NULL);
            if (ci.made) {
                serial = ci.made->serial;
                hp_encoder()->class_load(ci.made);
            } else {
                free(ci.sig);
                free(ci.source);
                serial = idx ? ((struct hp_class *)hp_table_info(classes, idx))->serial : 0;
            }
        }
    }
    hp_out_unlock();
    return serial;
}

/* Adds a class that has no class object, named `name` (internal form),
 * under key[0..key_len) (NULL: its new object ID, which no object has), and
 * writes LOAD CLASS. Under hp_out_lock; the entry, or NULL. */
static struct hp_class *add_objectless(const void *key, size_t key_len, const char *name,
                                       const char *source, bool pseudo)
{
    size_t len = strlen(name);
    /* The table owns the strings once the class is made. */
    struct class_init ci = {NULL, malloc(len + 3), source ? strdup(source) : NULL, hp_objid_new(0)};
    if (ci.sig) {
        ci.sig[0] = 'L';
        memcpy(ci.sig + 1, name, len);
        ci.sig[1 + len] = ';';
        ci.sig[2 + len] = '\0';
        hp_table_intern(classes, key ? key : &ci.obj, key ? key_len : sizeof ci.obj, init_class,
                        &ci, NULL);
    }
    if (ci.made) {
        ci.made->pseudo = pseudo;
        ci.made->unloaded = !pseudo;
        hp_encoder()->class_load(ci.made);
    } else {
        free(ci.sig);
        free(ci.source);
    }
    return ci.made;
}

uint32_t hp_class_pseudo(const char *name)
{
    if (classes == NULL) return 0;
    hp_out_lock();
    const struct hp_class *c = add_objectless(NULL, 0, name, NULL, true);
    hp_out_unlock();
    return c ? c->serial : 0;
}

uint32_t hp_class_serial_named(uint32_t key, const char *internal_name, const char *source)
{
    if (classes == NULL) return 0;
    hp_out_lock();
    uint32_t idx = hp_table_find(classes, &key, sizeof key);
    const struct hp_class *c = idx ? hp_table_info(classes, idx)
                                   : add_objectless(&key, sizeof key, internal_name, source, false);
    uint32_t serial = c ? c->serial : 0;
    hp_out_unlock();
    return serial;
}

const struct hp_class *hp_class_get(uint32_t serial)
{
    if (serial < HP_CLASS_SERIAL_BASE) return NULL;
    return hp_table_info(classes, serial - HP_CLASS_SERIAL_BASE + 1);
}

uint32_t hp_class_find(hp_objid_t obj)
{
    uint32_t idx = hp_table_find(classes, &obj, sizeof obj);
    return idx ? HP_CLASS_SERIAL_BASE + idx - 1 : 0;
}

uint32_t hp_class_count(void)
{
    return hp_table_count(classes);
}

void hp_class_resync(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jclass *loaded = NULL;
    if (!hp_jvmti_ok(jvmti, hp_loaded_classes(jvmti, jni, &n, &loaded), "GetLoadedClasses")) return;
    hp_out_lock();
    uint32_t gen = ++generation;
    hp_out_unlock();
    for (jint i = 0; i < n; i++) {
        uint32_t serial = hp_class_serial(jvmti, loaded[i]);
        struct hp_class *c = (struct hp_class *)hp_class_get(serial);
        if (c) c->generation = gen;
        (*jni)->DeleteLocalRef(jni, loaded[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)loaded);
    hp_out_lock();
    uint32_t count = hp_table_count(classes);
    for (uint32_t idx = 1; idx <= count; idx++) {
        struct hp_class *c = hp_table_info(classes, idx);
        if (!c->unloaded && !c->pseudo && c->generation != gen) {
            c->unloaded = true;
            hp_encoder()->class_unload(c);
        }
    }
    hp_out_unlock();
}
