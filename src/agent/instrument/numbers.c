#include "agent/instrument/numbers.h"

#include "agent/core/class_lists.h"
#include "agent/tables/table.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cls {
    char *name;
    _Atomic(char *) source;
    jweak loader;       /* NULL: boot loader */
    uint32_t next;      /* next class of the same name, 0 ends */
    atomic_bool wanted; /* a report needs its methods */
    atomic_bool done;   /* its methods were looked up */
    uint32_t n_mnums;
    _Atomic(int *) mnums; /* its numbered methods, published after n_mnums */
};

struct meth {
    uint32_t cnum;
    int base; /* the method an alias stands for; its own number otherwise */
    char *name, *desc;
    _Atomic(jmethodID) id;
    _Atomic(void *) extra;
};

/* Paged arrays: page p holds numbers p*PAGE .. p*PAGE+PAGE-1. */
#define PAGE 4096
#define MAX_PAGES 16384
static _Atomic(struct cls *) cls_pages[MAX_PAGES];
static _Atomic(struct meth *) meth_pages[MAX_PAGES];
static atomic_uint n_cls = 1, n_meth;

/* Name -> first class number of that name (later ones chain through next). */
static struct hp_table *by_name;
static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;

static void *slot(void *_Atomic *pages, size_t size, uint32_t n)
{
    uint32_t p = n / PAGE;
    if (p >= MAX_PAGES) return NULL;
    char *page = atomic_load(&pages[p]);
    if (page == NULL) {
        char *fresh = calloc(PAGE, size), *expected = NULL;
        if (fresh == NULL) return NULL;
        if (atomic_compare_exchange_strong(&pages[p], (void **)&expected, fresh))
            page = fresh;
        else {
            free(fresh);
            page = expected;
        }
    }
    return page + (size_t)(n % PAGE) * size;
}

static struct cls *cls_get(uint32_t cnum)
{
    return cnum && cnum < atomic_load(&n_cls)
               ? slot((void *_Atomic *)cls_pages, sizeof(struct cls), cnum)
               : NULL;
}

static struct meth *meth_get(int mnum)
{
    return mnum >= 0 && (unsigned)mnum < atomic_load(&n_meth)
               ? slot((void *_Atomic *)meth_pages, sizeof(struct meth), (uint32_t)mnum)
               : NULL;
}

static void init_head(void *info, const void *key, size_t len, void *ctx)
{
    (void)key, (void)len;
    *(uint32_t *)info = *(uint32_t *)ctx;
}

uint32_t hp_num_class(JNIEnv *jni, const char *name, jobject loader)
{
    uint32_t cnum = atomic_fetch_add(&n_cls, 1);
    struct cls *c = slot((void *_Atomic *)cls_pages, sizeof *c, cnum);
    if (c == NULL || (c->name = strdup(name)) == NULL) return 0;
    if (loader && jni) c->loader = (*jni)->NewWeakGlobalRef(jni, loader);
    pthread_mutex_lock(&name_lock);
    if (by_name == NULL) by_name = hp_table_new(sizeof(uint32_t));
    int added = 0;
    uint32_t idx =
        by_name ? hp_table_intern(by_name, name, strlen(name), init_head, &cnum, &added) : 0;
    if (idx && !added) {
        uint32_t *head = hp_table_info(by_name, idx);
        c->next = *head;
        *head = cnum;
    }
    pthread_mutex_unlock(&name_lock);
    return cnum;
}

static bool same_loader(JNIEnv *jni, jobject a, jweak b)
{
    if (a == NULL || b == NULL) return a == NULL && b == NULL;
    return (*jni)->IsSameObject(jni, a, b);
}

uint32_t hp_num_class_again(JNIEnv *jni, const char *name, jobject loader)
{
    pthread_mutex_lock(&name_lock);
    uint32_t idx = by_name ? hp_table_find(by_name, name, strlen(name)) : 0;
    uint32_t cnum = idx ? *(uint32_t *)hp_table_info(by_name, idx) : 0;
    pthread_mutex_unlock(&name_lock);
    for (struct cls *c; (c = cls_get(cnum)) != NULL; cnum = c->next)
        if (same_loader(jni, loader, c->loader)) return cnum;
    return 0;
}

int hp_num_method_again(uint32_t cnum, const char *name, const char *desc)
{
    struct cls *c = cls_get(cnum);
    int *mnums = c ? atomic_load(&c->mnums) : NULL;
    for (uint32_t j = 0; mnums && j < c->n_mnums; j++) {
        struct meth *m = meth_get(mnums[j]);
        if (m && strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0) return mnums[j];
    }
    return hp_num_method(cnum, name, desc);
}

int hp_num_method(uint32_t cnum, const char *name, const char *desc)
{
    uint32_t mnum = atomic_fetch_add(&n_meth, 1);
    if (mnum > INT32_MAX) return -1;
    struct meth *m = slot((void *_Atomic *)meth_pages, sizeof *m, mnum);
    if (m == NULL) return -1;
    m->cnum = cnum;
    m->base = (int)mnum;
    m->name = strdup(name);
    m->desc = strdup(desc);
    return m->name && m->desc ? (int)mnum : -1;
}

int hp_num_alias(int mnum)
{
    struct meth *of = meth_get(mnum);
    uint32_t n = of ? atomic_fetch_add(&n_meth, 1) : (uint32_t)-1;
    struct meth *m = n <= INT32_MAX ? slot((void *_Atomic *)meth_pages, sizeof *m, n) : NULL;
    if (m == NULL) return -1;
    *m = (struct meth){.cnum = of->cnum, .base = of->base, .name = of->name, .desc = of->desc};
    return (int)n;
}

int hp_num_base(int number)
{
    struct meth *m = meth_get(number);
    return m ? m->base : number;
}

void hp_num_want(int mnum)
{
    struct meth *m = meth_get(mnum);
    struct cls *c = m ? cls_get(m->cnum) : NULL;
    if (c) atomic_store(&c->wanted, true);
}

jmethodID hp_num_method_id(int mnum)
{
    struct meth *m = meth_get(hp_num_base(mnum));
    return m ? atomic_load(&m->id) : NULL;
}

void hp_num_class_methods(uint32_t cnum, const int *mnums, uint32_t n)
{
    struct cls *c = cls_get(cnum);
    int *had = c ? atomic_load(&c->mnums) : NULL;
    if (had && c->n_mnums == n && memcmp(had, mnums, sizeof *had * n) == 0)
        return; /* a retransformation's */
    int *copy = n ? malloc(sizeof *copy * n) : NULL;
    if (c == NULL || copy == NULL) {
        free(copy);
        return;
    }
    memcpy(copy, mnums, sizeof *copy * n);
    c->n_mnums = n;
    atomic_store(&c->mnums, copy);
}

static int by_name_desc(const void *a, const void *b)
{
    const struct meth *x = *(struct meth *const *)a, *y = *(struct meth *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->desc, y->desc);
}

/* Gives the methods of class c the jmethodIDs of the loaded class k: each
 * of k's methods is looked up among c's, sorted by name and descriptor
 * (not compared with each: a class of hundreds of methods), and the walk
 * stops once every one of c's has its ID. */
static void match_methods(jvmtiEnv *jvmti, struct cls *c, jclass k)
{
    int *mnums = atomic_load(&c->mnums);
    struct meth **sorted = malloc(sizeof *sorted * (c->n_mnums ? c->n_mnums : 1));
    uint32_t n_sorted = 0;
    for (uint32_t j = 0; sorted && j < c->n_mnums; j++) {
        struct meth *m = meth_get(mnums[j]);
        if (m && m->name && m->desc) sorted[n_sorted++] = m;
    }
    jint n = 0;
    jmethodID *ids = NULL;
    if (sorted == NULL || (*jvmti)->GetClassMethods(jvmti, k, &n, &ids) != JVMTI_ERROR_NONE) {
        free(sorted);
        return;
    }
    qsort(sorted, n_sorted, sizeof *sorted, by_name_desc);
    /* A class's methods differ in name or descriptor: each is found once. */
    for (jint i = 0, left = (jint)n_sorted; i < n && left > 0; i++) {
        struct meth key = {0};
        if ((*jvmti)->GetMethodName(jvmti, ids[i], &key.name, &key.desc, NULL) != JVMTI_ERROR_NONE)
            continue;
        const struct meth *want = &key;
        struct meth **hit = bsearch(&want, sorted, n_sorted, sizeof *sorted, by_name_desc);
        if (hit) {
            atomic_store(&(*hit)->id, ids[i]);
            left--;
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)key.name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)key.desc);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    free(sorted);
    atomic_store(&c->done, true);
}

/* Matches one loaded class against the wanted classes of its name. */
static void resolve_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass k)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) != JVMTI_ERROR_NONE) return;
    size_t len = strlen(sig);
    uint32_t idx = 0;
    if (sig[0] == 'L' && len > 2) {
        pthread_mutex_lock(&name_lock);
        idx = by_name ? hp_table_find(by_name, sig + 1, len - 2) : 0;
        uint32_t cnum = idx ? *(uint32_t *)hp_table_info(by_name, idx) : 0;
        pthread_mutex_unlock(&name_lock);
        jobject loader = NULL;
        bool have_loader = false;
        for (struct cls *c; (c = cls_get(cnum)) != NULL; cnum = c->next) {
            if (!atomic_load(&c->wanted) || atomic_load(&c->done) || atomic_load(&c->mnums) == NULL)
                continue;
            if (!have_loader) {
                if ((*jvmti)->GetClassLoader(jvmti, k, &loader) != JVMTI_ERROR_NONE) break;
                have_loader = true;
            }
            if (same_loader(jni, loader, c->loader)) match_methods(jvmti, c, k);
        }
        if (loader) (*jni)->DeleteLocalRef(jni, loader);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

void hp_num_resolve(jvmtiEnv *jvmti, JNIEnv *jni)
{
    bool pending = false;
    for (uint32_t cnum = 1; !pending && cnum < atomic_load(&n_cls); cnum++) {
        struct cls *c = cls_get(cnum);
        pending = c && atomic_load(&c->wanted) && !atomic_load(&c->done);
    }
    jint n = 0;
    jclass *classes = NULL;
    if (!pending || hp_loaded_classes(jvmti, jni, &n, &classes) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; i++) {
        resolve_class(jvmti, jni, classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

void hp_num_class_source(uint32_t cnum, const uint8_t *source, uint16_t len)
{
    struct cls *c = cls_get(cnum);
    char *copy = c ? malloc((size_t)len + 1) : NULL, *none = NULL;
    if (copy == NULL) return;
    memcpy(copy, source, len);
    copy[len] = 0;
    if (!atomic_compare_exchange_strong(&c->source, &none, copy)) free(copy);
}

bool hp_num_names(int mnum, struct hp_num_names *out)
{
    struct meth *m = meth_get(mnum);
    struct cls *c = m ? cls_get(m->cnum) : NULL;
    if (c == NULL || m->name == NULL || m->desc == NULL) return false;
    *out = (struct hp_num_names){m->cnum, c->name, atomic_load(&c->source), m->name, m->desc};
    return true;
}

bool hp_num_set_extra(int mnum, void *extra)
{
    struct meth *m = meth_get(mnum);
    void *none = NULL;
    return m && atomic_compare_exchange_strong(&m->extra, &none, extra);
}

void *hp_num_extra(int mnum)
{
    struct meth *m = meth_get(mnum);
    return m ? atomic_load(&m->extra) : NULL;
}
