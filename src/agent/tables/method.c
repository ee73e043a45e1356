#include "agent/tables/method.h"

#include "agent/core/jvmti_string.h"
#include "agent/tables/class.h"
#include "agent/tables/table.h"

#include <stdlib.h>
#include <string.h>

static struct hp_table *methods;

void hp_method_table_init(void)
{
    methods = hp_table_new(sizeof(struct hp_method));
}

static int by_location(const void *a, const void *b)
{
    jlocation x = ((const jvmtiLineNumberEntry *)a)->start_location;
    jlocation y = ((const jvmtiLineNumberEntry *)b)->start_location;
    return (x > y) - (x < y);
}

static void resolve(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m, struct hp_method *out)
{
    jclass klass = NULL;
    char *name = NULL, *sig = NULL;
    jboolean native = JNI_FALSE;
    jint n = 0;
    jvmtiLineNumberEntry *lines = NULL;

    memset(out, 0, sizeof *out);
    out->n_lines = -1;
    /* Any of these fails for a method of an unloaded class: keep what we have. */
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &klass) == JVMTI_ERROR_NONE) {
        out->class_serial = hp_class_serial(jvmti, klass);
        (*jni)->DeleteLocalRef(jni, klass);
        /* Only the boot loader defines java.lang, and the JDK has no Hprof*. */
        const struct hp_class *c = hp_class_get(out->class_serial);
        out->agent = c != NULL && strncmp(c->sig, "Ljava/lang/Hprof", 16) == 0;
    }
    if ((*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        out->name = hp_take_jvmti_string(jvmti, name);
        out->sig = hp_take_jvmti_string(jvmti, sig);
    }
    if ((*jvmti)->IsMethodNative(jvmti, m, &native) == JVMTI_ERROR_NONE) out->native = native;
    if (!out->native && (*jvmti)->GetLineNumberTable(jvmti, m, &n, &lines) == JVMTI_ERROR_NONE) {
        out->lines = malloc(sizeof(*lines) * (size_t)(n ? n : 1));
        if (out->lines) {
            memcpy(out->lines, lines, sizeof(*lines) * (size_t)n);
            /* The class file does not promise an order; the lookup needs one. */
            qsort(out->lines, (size_t)n, sizeof *lines, by_location);
            out->n_lines = n;
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)lines);
    }
}

static void init_method(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key;
    (void)key_len;
    memcpy(info, ctx, sizeof(struct hp_method));
}

const struct hp_method *hp_method_get(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m)
{
    uint32_t idx = hp_table_find(methods, &m, sizeof m);
    if (idx == 0) {
        struct hp_method fresh;
        int added;
        resolve(jvmti, jni, m, &fresh);
        idx = hp_table_intern(methods, &m, sizeof m, init_method, &fresh, &added);
        if (!added) { /* another thread resolved it first, or no memory */
            free(fresh.name);
            free(fresh.sig);
            free(fresh.lines);
        }
    }
    static const struct hp_method unknown = {.n_lines = -1};
    const struct hp_method *info = hp_table_info(methods, idx);
    return info ? info : &unknown;
}

void hp_method_define(const void *key, const struct hp_method *m)
{
    struct hp_method copy = *m;
    hp_table_intern(methods, &key, sizeof key, init_method, &copy, NULL);
}

int32_t hp_method_line(const struct hp_method *m, jlocation loc)
{
    if (m->native) return -3;
    if (loc < 0) return -1;
    if (m->n_lines <= 0) return 0;
    /* The line of the entry with the greatest start_location <= loc. */
    jint lo = 0, hi = m->n_lines - 1, best = -1;
    while (lo <= hi) {
        jint mid = lo + (hi - lo) / 2;
        if (m->lines[mid].start_location <= loc) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (best < 0) return -1;
    return m->lines[best].line_number;
}
