#include "agent/instrument/frames.h"

#include "agent/instrument/numbers.h"
#include "agent/tables/class.h"
#include "agent/tables/frame.h"
#include "agent/tables/method.h"
#include "agent/tables/table.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A call site: the key of what it can call, and its line. */
struct call {
    uint32_t key;
    int32_t line;
};

/* Per method number (numbers.c's extra). */
struct lines {
    int32_t first_line;
    uint32_t n;
    _Atomic(struct hp_method *) named; /* made when its class is gone */
    struct call calls[];               /* sorted by key, then line */
};

/* Eight bytes a step, multiply and xorshift: every call site of every
 * rewritten method is hashed twice at load (byte-at-a-time FNV-1a was 8 %
 * of the rewrite hook's CPU). Keys live in this process only. */
static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t x = h ^ (uint64_t)n << 32, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        x = (x ^ w) * 0x9E3779B97F4A7C15u;
        x ^= x >> 29;
    }
    w = 0;
    if (n) memcpy(&w, s, n);
    x = (x ^ w) * 0xBF58476D1CE4E5B9u;
    return (uint32_t)(x ^ x >> 32);
}

#define HASH_SEED 2166136261u

static uint32_t invoke_key(const void *name, size_t name_len, const void *desc, size_t desc_len)
{
    return hash_bytes(hash_bytes(HASH_SEED, name, name_len), desc, desc_len);
}

static uint32_t clinit_key(const void *owner, size_t owner_len)
{
    return hash_bytes(hash_bytes(HASH_SEED, "<clinit>", 8), owner, owner_len);
}

static uint32_t method_key(const void *owner, size_t owner_len, const void *name, size_t name_len,
                           const void *desc, size_t desc_len)
{
    return hash_bytes(invoke_key(name, name_len, desc, desc_len), owner, owner_len);
}

/* ---- lambdas: method key of an implementation -> interface method keys ---- */
#define MAX_INTERFACES 4
struct interfaces {
    uint32_t n, keys[MAX_INTERFACES];
};
static struct hp_table *lambdas;
static pthread_mutex_t lambdas_lock = PTHREAD_MUTEX_INITIALIZER;

/* The implementation of a lambda is called through an interface method
 * from code its hidden class hides: its callers call that method. */
static void add_lambda(const struct bci_call *c)
{
    uint32_t impl = method_key(c->owner, c->owner_len, c->impl_name, c->impl_name_len, c->impl_desc,
                               c->impl_desc_len);
    uint32_t iface = invoke_key(c->name, c->name_len, c->desc, c->desc_len);
    pthread_mutex_lock(&lambdas_lock);
    if (lambdas == NULL) lambdas = hp_table_new(sizeof(struct interfaces));
    uint32_t idx = lambdas ? hp_table_intern(lambdas, &impl, sizeof impl, NULL, NULL, NULL) : 0;
    struct interfaces *in = idx ? hp_table_info(lambdas, idx) : NULL;
    bool known = false;
    for (uint32_t i = 0; in && i < in->n; i++)
        known |= in->keys[i] == iface;
    if (in && !known && in->n < MAX_INTERFACES) in->keys[in->n++] = iface;
    pthread_mutex_unlock(&lambdas_lock);
}

/* The interface methods through which method mnum is called as a lambda. */
static struct interfaces interfaces_of(int mnum)
{
    struct interfaces out = {0};
    struct hp_num_names nm;
    if (!hp_num_names(mnum, &nm)) return out;
    uint32_t impl = method_key(nm.class_name, strlen(nm.class_name), nm.name, strlen(nm.name),
                               nm.desc, strlen(nm.desc));
    pthread_mutex_lock(&lambdas_lock);
    uint32_t idx = lambdas ? hp_table_find(lambdas, &impl, sizeof impl) : 0;
    if (idx) out = *(struct interfaces *)hp_table_info(lambdas, idx);
    pthread_mutex_unlock(&lambdas_lock);
    return out;
}

static int by_key_line(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Calls through java.lang.invoke's linkage, whose frames traces show in
 * part (hidden classes): invokedynamic, and the signature polymorphic
 * MethodHandle.invokeExact and invoke, share one key. */
static uint32_t dynamic_key(void)
{
    return invoke_key(BCI_INDY_NAME, sizeof BCI_INDY_NAME - 1, "", 0);
}

static bool polymorphic(const struct bci_call *c)
{
    static const char mh[] = "java/lang/invoke/MethodHandle";
    return c->owner && c->owner_len == sizeof mh - 1 && memcmp(c->owner, mh, sizeof mh - 1) == 0 &&
           ((c->name_len == 11 && memcmp(c->name, "invokeExact", 11) == 0) ||
            (c->name_len == 6 && memcmp(c->name, "invoke", 6) == 0));
}

static uint32_t call_key(const struct bci_call *c)
{
    return polymorphic(c) ? dynamic_key() : invoke_key(c->name, c->name_len, c->desc, c->desc_len);
}

void hp_frames_record(const struct bci_method_calls *mc)
{
    struct lines *l = malloc(sizeof *l + sizeof(struct call) * 2 * (mc->n ? mc->n : 1));
    if (l == NULL) return;
    l->first_line = mc->first_line;
    atomic_init(&l->named, NULL);
    uint32_t n = 0;
    for (uint32_t i = 0; i < mc->n; i++) {
        const struct bci_call *c = &mc->calls[i];
        if (c->impl_name) {
            add_lambda(c);
            continue;
        }
        if (c->name) l->calls[n++] = (struct call){call_key(c), c->line};
        /* new, getstatic, putstatic and invokestatic initialise their class. */
        if (!c->name || c->opcode == 0xb8)
            l->calls[n++] = (struct call){clinit_key(c->owner, c->owner_len), c->line};
    }
    qsort(l->calls, n, sizeof *l->calls, by_key_line);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
        if (kept == 0 || by_key_line(&l->calls[kept - 1], &l->calls[i]) != 0)
            l->calls[kept++] = l->calls[i];
    l->n = kept;
    if (!hp_num_set_extra(mc->method_number, l)) free(l);
}

static struct lines *lines_of(int mnum)
{
    struct lines *l = hp_num_extra(mnum);
    if (l) return l;
    /* A method the rewriter parsed without reporting (out of memory). */
    l = calloc(1, sizeof *l);
    if (l && !hp_num_set_extra(mnum, l)) {
        free(l);
        l = hp_num_extra(mnum);
    }
    return l;
}

/* ---- what HPROF_DEBUG_LINES counts ---- */
enum { ONE_LINE, AT_RUN_TIME, LOWEST_OF_SEVERAL, NO_CALL, N_OUTCOMES };
static atomic_ulong outcomes[N_OUTCOMES];
static bool debug;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static void print_outcomes(void)
{
    fprintf(stderr,
            "HPROF: caller lines: %lu one call, %lu call seen at run time, %lu lowest of several, "
            "%lu no call\n",
            atomic_load(&outcomes[ONE_LINE]), atomic_load(&outcomes[AT_RUN_TIME]),
            atomic_load(&outcomes[LOWEST_OF_SEVERAL]), atomic_load(&outcomes[NO_CALL]));
}

static void check_debug(void)
{
    debug = getenv("HPROF_DEBUG_LINES") != NULL;
    if (debug) atexit(print_outcomes);
}

static void count(int outcome)
{
    pthread_once(&debug_once, check_debug);
    if (debug) atomic_fetch_add(&outcomes[outcome], 1);
}

/* Whether method mnum can be the first frame a trace shows above a
 * dynamic call: its linkage (Invokers$Holder's linkTo*, invokeExact_MT,
 * invoke_MT), the JVM's upcalls resolving it (MethodHandleNatives; JDK 17
 * and 25), or, past hidden classes of the linkage, java.lang.invoke or
 * string concatenation code. */
static bool after_dynamic(const struct hp_num_names *nm, bool exactly)
{
    if (strcmp(nm->class_name, "java/lang/invoke/Invokers$Holder") == 0)
        return strncmp(nm->name, "linkTo", 6) == 0 || strcmp(nm->name, "invokeExact_MT") == 0 ||
               strcmp(nm->name, "invoke_MT") == 0;
    if (strcmp(nm->class_name, "java/lang/invoke/MethodHandleNatives") == 0) return true;
    return !exactly && (strncmp(nm->class_name, "java/lang/invoke/", 17) == 0 ||
                        strncmp(nm->class_name, "java/lang/StringConcatHelper", 28) == 0);
}

/* The key of the calls that can reach method mnum; 0 if unknown. */
static uint32_t callee_key(int mnum)
{
    struct hp_num_names nm;
    if (!hp_num_names(mnum, &nm)) return 0;
    if (after_dynamic(&nm, true)) return dynamic_key();
    return strcmp(nm.name, "<clinit>") == 0
               ? clinit_key(nm.class_name, strlen(nm.class_name))
               : invoke_key(nm.name, strlen(nm.name), nm.desc, strlen(nm.desc));
}

/* The first of caller's calls with this key: its index, or caller->n. */
static uint32_t first_call(const struct lines *caller, uint32_t key)
{
    uint32_t lo = 0, hi = caller->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (caller->calls[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < caller->n && caller->calls[lo].key == key ? lo : caller->n;
}

static bool several(const struct lines *l, uint32_t i)
{
    return i + 1 < l->n && l->calls[i + 1].key == l->calls[i].key;
}

int hp_frames_call_number(int mnum, const struct bci_call *call)
{
    const struct lines *l = hp_num_extra(mnum);
    uint32_t key = call_key(call);
    uint32_t i = l ? first_call(l, key) : 0;
    if (l == NULL || i == l->n || !several(l, i)) return BCI_SKIP;
    struct call *c = malloc(sizeof *c);
    int alias = c ? hp_num_alias(mnum) : -1;
    if (alias < 0 || !hp_num_set_extra(alias, c)) {
        free(c);
        return BCI_SKIP;
    }
    *c = (struct call){key, call->line};
    return alias;
}

int hp_instr_method_of(int number)
{
    return hp_num_base(number);
}

/* The line of the call frame `number` (a method, or one of its calls) made
 * to reach callee; -1 when it has none. */
static int32_t call_line(int number, const struct lines *caller, int callee)
{
    uint32_t key = callee_key(callee);
    const struct call *ran = hp_num_base(number) != number ? hp_num_extra(number) : NULL;
    if (ran && ran->key == key) {
        count(AT_RUN_TIME);
        return ran->line;
    }
    uint32_t i = caller && key ? first_call(caller, key) : 0;
    if (caller && i == caller->n) { /* a lambda: called through its interface */
        struct interfaces in = interfaces_of(callee);
        for (uint32_t k = 0; k < in.n && i == caller->n; k++)
            i = first_call(caller, in.keys[k]);
    }
    /* No call of the callee: reached through hidden classes of a dynamic
     * call's linkage, the one that ran, or one past java.lang.invoke. */
    struct hp_num_names nm;
    if (caller && i == caller->n && key != dynamic_key()) {
        if (ran && ran->key == dynamic_key()) {
            count(AT_RUN_TIME);
            return ran->line;
        }
        if (hp_num_names(callee, &nm) && after_dynamic(&nm, false))
            i = first_call(caller, dynamic_key());
    }
    if (caller == NULL || i == caller->n) {
        count(NO_CALL);
        return -1;
    }
    count(several(caller, i) ? LOWEST_OF_SEVERAL : ONE_LINE);
    return caller->calls[i].line;
}

/* The method entry of mnum: its jmethodID's while its class is loaded,
 * else one made from the rewriter's names. */
static const struct hp_method *method_of(jvmtiEnv *jvmti, JNIEnv *jni, int mnum, struct lines *l)
{
    jmethodID id = hp_num_method_id(mnum);
    const struct hp_method *m = id ? hp_method_get(jvmti, jni, id) : NULL;
    if (m && m->name) return m;
    struct hp_method *made = l ? atomic_load(&l->named) : NULL;
    struct hp_num_names nm;
    if (made || l == NULL || !hp_num_names(mnum, &nm)) return made;
    made = calloc(1, sizeof *made);
    if (made == NULL) return NULL;
    made->class_serial = hp_class_serial_named(nm.cnum, nm.class_name, nm.source);
    made->name = strdup(nm.name);
    made->sig = strdup(nm.desc);
    made->n_lines = -1;
    struct hp_method *none = NULL;
    if (!atomic_compare_exchange_strong(&l->named, &none, made)) {
        free(made->name);
        free(made->sig);
        free(made);
        made = none;
    }
    return made;
}

uint32_t hp_instr_trace(jvmtiEnv *jvmti, JNIEnv *jni, const jint *mnums, uint32_t n,
                        int32_t top_line, uint32_t thread_serial)
{
    uint32_t *ids = malloc(sizeof *ids * (n ? n : 1));
    if (ids == NULL) return HP_TRACE_EMPTY;
    for (uint32_t i = 0; i < n; i++) {
        int mnum = hp_num_base(mnums[i]);
        struct lines *l = lines_of(mnum);
        const struct hp_method *m = method_of(jvmti, jni, mnum, l);
        int32_t line = i ? call_line(mnums[i], l, mnums[i - 1]) : top_line;
        if (line == HP_LINE_FIRST) line = l ? l->first_line : -1;
        ids[i] = m ? hp_frame_intern_line(m, line) : 0;
        if (ids[i] == 0) {
            free(ids);
            return HP_TRACE_EMPTY;
        }
    }
    uint32_t serial = hp_trace_intern(thread_serial, ids, n);
    free(ids);
    return serial;
}
