#include "agent/modes/heap_dump/classes.h"

#include "agent/core/class_lists.h"
#include "agent/core/error.h"
#include "agent/tables/class.h"

#include <stdlib.h>
#include <string.h>

static hp_objid_t tag_of(jvmtiEnv *jvmti, JNIEnv *jni, jobject o)
{
    if (o == NULL) return 0;
    hp_objid_t id = hp_objid_of(jvmti, o);
    (*jni)->DeleteLocalRef(jni, o);
    return id;
}

/* HotSpot's reflection filter: fields that GetClassFields lists but the
 * heap walk leaves out of its field indices (JDK 8 named the classes
 * sun.reflect.*; JDK 22+ has no UnsafeStaticFieldAccessorImpl). */
static bool hidden_field(const char *class_name, const char *field)
{
    static const char *const hidden[][2] = {
        {"jdk.internal.reflect.ConstantPool", "constantPoolOop"},
        {"jdk.internal.reflect.UnsafeStaticFieldAccessorImpl", "base"},
        {"sun.reflect.ConstantPool", "constantPoolOop"},
        {"sun.reflect.UnsafeStaticFieldAccessorImpl", "base"},
    };
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (strcmp(class_name, hidden[i][0]) == 0 && strcmp(field, hidden[i][1]) == 0) return true;
    return false;
}

/* Declared fields in GetClassFields order, and which are static. A class
 * that is not prepared yet has none to report and no instances. */
static void read_fields(jvmtiEnv *jvmti, jclass k, struct hd_class *c)
{
    jint n = 0;
    jfieldID *ids = NULL;
    if ((*jvmti)->GetClassFields(jvmti, k, &n, &ids) != JVMTI_ERROR_NONE) return;
    c->all = calloc((size_t)n + 1, sizeof *c->all);
    c->all_static = calloc((size_t)n + 1, sizeof *c->all_static);
    if (c->all && c->all_static) {
        for (jint i = 0; i < n; i++) {
            char *name = NULL, *sig = NULL;
            jint mods = 0;
            if ((*jvmti)->GetFieldName(jvmti, k, ids[i], &name, &sig, NULL) != JVMTI_ERROR_NONE ||
                (*jvmti)->GetFieldModifiers(jvmti, k, ids[i], &mods) != JVMTI_ERROR_NONE) {
                (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
                (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
                continue; /* counted nonetheless: indices must stay aligned */
            }
            c->all[i].name = strdup(name);
            c->all[i].type = (sig[0] == '[' || sig[0] == 'L') ? 'L' : sig[0];
            c->all[i].hidden = hidden_field(c->name, name);
            c->n_hidden += c->all[i].hidden;
            c->all_static[i] = (mods & 0x0008) != 0; /* ACC_STATIC */
            (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
        }
        c->n_declared = (uint32_t)n;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
}

static void read_interfaces(jvmtiEnv *jvmti, JNIEnv *jni, jclass k, struct hd_class *c)
{
    jint n = 0;
    jclass *ifs = NULL;
    if ((*jvmti)->GetImplementedInterfaces(jvmti, k, &n, &ifs) != JVMTI_ERROR_NONE) return;
    c->ifaces = calloc((size_t)n + 1, sizeof *c->ifaces);
    for (jint i = 0; i < n; i++) {
        hp_objid_t id = tag_of(jvmti, jni, ifs[i]);
        if (c->ifaces) c->ifaces[c->n_ifaces++] = id;
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ifs);
}

static bool read_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass k, struct hd_class *c)
{
    uint32_t serial = hp_class_serial(jvmti, k);
    const struct hp_class *known = hp_class_get(serial);
    if (known == NULL) return false;
    c->obj = known->obj;
    c->serial = serial;
    c->name = known->name;
    if (known->sig[0] == '[') c->array_elem = (known->sig[1] == '[') ? 'L' : known->sig[1];
    jboolean iface = JNI_FALSE;
    if ((*jvmti)->IsInterface(jvmti, k, &iface) == JVMTI_ERROR_NONE) c->is_interface = iface;
    jclass super = (*jni)->GetSuperclass(jni, k);
    c->super = tag_of(jvmti, jni, super);
    jobject loader = NULL;
    if ((*jvmti)->GetClassLoader(jvmti, k, &loader) == JVMTI_ERROR_NONE)
        c->loader = tag_of(jvmti, jni, loader);
    jint status = 0;
    if (c->array_elem == 0 && (*jvmti)->GetClassStatus(jvmti, k, &status) == JVMTI_ERROR_NONE)
        c->unprepared = !(status & JVMTI_CLASS_STATUS_PREPARED);
    if (c->array_elem == 0) {
        read_fields(jvmti, k, c);
        read_interfaces(jvmti, jni, k, c);
    }
    return true;
}

/* Adds the fields of every interface `c` implements (directly, through its
 * superinterfaces or through its superclasses) to *sum, each interface once. */
static void count_interface_fields(struct hd_classes *cs, const struct hd_class *c,
                                   struct hd_map *seen, uint32_t *sum)
{
    for (; c; c = c->super_cls) {
        for (uint32_t i = 0; i < c->n_ifaces; i++) {
            uint64_t dummy;
            if (hd_map_get(seen, c->ifaces[i], &dummy)) continue;
            hd_map_put(seen, c->ifaces[i], 1);
            struct hd_class *itf = hd_class_of(cs, c->ifaces[i]);
            if (itf == NULL) continue;
            *sum += itf->n_declared;
            count_interface_fields(cs, itf, seen, sum);
        }
    }
}

static bool split_fields(struct hd_class *c)
{
    c->inst = calloc((size_t)c->n_declared + 1, sizeof *c->inst);
    c->stat = calloc((size_t)c->n_declared + 1, sizeof *c->stat);
    c->stat_val = calloc((size_t)c->n_declared + 1, sizeof *c->stat_val);
    if (!c->inst || !c->stat || !c->stat_val) return false;
    for (uint32_t i = 0; i < c->n_declared; i++) {
        if (c->all_static[i])
            c->stat[c->n_stat++] = c->all[i];
        else
            c->inst[c->n_inst++] = c->all[i];
    }
    return true;
}

/* Field indices follow the JVM TI rule: the fields of all implemented
 * interfaces come first (n of them), then the declared fields of
 * java.lang.Object, ..., the superclass and the class itself, each class's
 * in GetClassFields order. An interface's own fields start after those of
 * its superinterfaces. */
static void build(struct hd_classes *cs, struct hd_class *c)
{
    if (c->built || c->building) return;
    c->building = true;
    c->super_cls = c->super ? hd_class_of(cs, c->super) : NULL;
    if (c->super_cls) build(cs, c->super_cls);
    if (!split_fields(c)) c->n_inst = c->n_stat = 0;
    c->n_values = c->n_inst + (c->super_cls ? c->super_cls->n_values : 0);
    c->inst_bytes = c->super_cls ? c->super_cls->inst_bytes : 0;
    for (uint32_t i = 0; i < c->n_inst; i++)
        c->inst_bytes += hd_type_size(c->inst[i].type);
    c->slot_type = malloc((size_t)c->n_values + 1);
    if (c->slot_type) {
        for (uint32_t i = 0; i < c->n_inst; i++)
            c->slot_type[i] = c->inst[i].type;
        if (c->super_cls && c->super_cls->slot_type)
            memcpy(c->slot_type + c->n_inst, c->super_cls->slot_type, c->super_cls->n_values);
        else
            memset(c->slot_type + c->n_inst, 0, c->n_values - c->n_inst);
    }

    uint32_t n_iface = 0;
    struct hd_map seen;
    hd_map_init(&seen);
    count_interface_fields(cs, c, &seen, &n_iface);
    hd_map_free(&seen);

    uint32_t total = n_iface;
    for (const struct hd_class *k = c; k; k = k->super_cls)
        total += k->n_declared - k->n_hidden;
    c->index_map = malloc(((size_t)total + 1) * sizeof *c->index_map);
    if (c->index_map) {
        c->n_index = total;
        for (uint32_t i = 0; i < total; i++)
            c->index_map[i] = -1;
        /* Walk the chain from the class up; each class's block of indices
         * ends where its subclass's begins, and its instance slots come
         * after those of the classes below it. */
        uint32_t end = total, slot_base = 0;
        for (const struct hd_class *k = c; k; k = k->super_cls) {
            uint32_t start = end - (k->n_declared - k->n_hidden), at = start;
            uint32_t p_inst = 0, p_stat = 0;
            for (uint32_t i = 0; i < k->n_declared; i++) {
                bool is_static = k->all_static && k->all_static[i];
                if (k->all && k->all[i].hidden) { /* keeps its slot, takes no index */
                    if (is_static)
                        p_stat++;
                    else
                        p_inst++;
                    continue;
                }
                if (is_static)
                    c->index_map[at++] = k == c ? -2 - (int32_t)p_stat++ : -1;
                else
                    c->index_map[at++] = (int32_t)(slot_base + p_inst++);
            }
            slot_base += k->n_inst;
            end = start;
        }
    }
    c->building = false;
    c->built = true;
}

/* The primitive types' Class objects, from the wrappers' TYPE fields. */
static void load_primitive_mirrors(struct hd_classes *cs, jvmtiEnv *jvmti, JNIEnv *jni)
{
    static const char *const wrappers[9] = {
        "java/lang/Boolean", "java/lang/Byte",    "java/lang/Character",
        "java/lang/Short",   "java/lang/Integer", "java/lang/Long",
        "java/lang/Float",   "java/lang/Double",  "java/lang/Void"};
    for (int i = 0; i < 9; i++) {
        jclass k = (*jni)->FindClass(jni, wrappers[i]);
        jfieldID f = k ? (*jni)->GetStaticFieldID(jni, k, "TYPE", "Ljava/lang/Class;") : NULL;
        jobject mirror = f ? (*jni)->GetStaticObjectField(jni, k, f) : NULL;
        if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
        cs->prims[i] = tag_of(jvmti, jni, mirror);
        if (k) (*jni)->DeleteLocalRef(jni, k);
    }
}

bool hd_classes_load(struct hd_classes *cs, jvmtiEnv *jvmti, JNIEnv *jni)
{
    *cs = (struct hd_classes){0};
    hd_map_init(&cs->by_obj);
    /* First: looking the wrappers up links them, and a class read before it
     * was linked would have no fields in the dump while the walk reports
     * its static values (java.lang.Long and Short under CDS). */
    load_primitive_mirrors(cs, jvmti, jni);
    jint n = 0;
    jclass *loaded = NULL;
    if (!hp_jvmti_ok(jvmti, hp_loaded_classes(jvmti, jni, &n, &loaded), "GetLoadedClasses"))
        return false;
    cs->v = calloc((size_t)n + 1, sizeof *cs->v);
    for (jint i = 0; i < n; i++) {
        if (cs->v && read_class(jvmti, jni, loaded[i], &cs->v[cs->n]) &&
            hd_map_put(&cs->by_obj, cs->v[cs->n].obj, cs->n))
            cs->n++;
        (*jni)->DeleteLocalRef(jni, loaded[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)loaded);
    if (cs->v == NULL || cs->by_obj.oom) {
        hp_error("no memory for the heap dump's class table");
        hd_classes_free(cs);
        return false;
    }
    for (uint32_t i = 0; i < cs->n; i++) {
        build(cs, &cs->v[i]);
        const struct hp_class *known = hp_class_get(cs->v[i].serial);
        if (known && strcmp(known->sig, "Ljava/lang/Class;") == 0) cs->java_lang_class = &cs->v[i];
    }
    return true;
}

void hd_classes_free(struct hd_classes *cs)
{
    for (uint32_t i = 0; i < cs->n; i++) {
        struct hd_class *c = &cs->v[i];
        for (uint32_t f = 0; f < c->n_declared; f++)
            free(c->all ? c->all[f].name : NULL);
        free(c->all);
        free(c->all_static);
        free(c->inst);
        free(c->stat);
        free(c->stat_val);
        free(c->index_map);
        free(c->slot_type);
        free(c->cp);
        free(c->ifaces);
    }
    free(cs->v);
    hd_map_free(&cs->by_obj);
    *cs = (struct hd_classes){0};
}
