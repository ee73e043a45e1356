#include "agent/instrument/instrument.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/core/jvm_args.h"
#include "agent/instrument/frames.h"
#include "agent/instrument/intrinsics.h"
#include "agent/instrument/numbers.h"
#include "agent/instrument/retransform.h"
#include "agent/instrument/tracker.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CLIENTS 4

static struct hp_instr_client clients[MAX_CLIENTS];
static int n_clients;
static struct bci_hooks hooks; /* the union of the clients' injections */
static jclass tracker;         /* defined once; a later recording reuses it */
/* The field cpu=times started with the JVM gives Thread; when the hooks
 * add it, HprofTracker's build that reads it is defined. */
static const struct bci_field tracker_thread_fields[] = {{"hprofTracker", "L" HP_TRACKER_CLASS ";"},
                                                         {NULL, NULL}};
/* The clients' own classes (global refs), by name: defined once in the JVM
 * (a class cannot be undefined), later recordings find them here. */
static struct {
    const char *name;
    jclass k;
} client_classes[MAX_CLIENTS];
static int n_client_classes;
static bool debug;  /* HPROF_DEBUG_BCI set: log every class left unchanged */
static bool frames; /* a client makes hp_instr_trace frames */
/* HPROF_DEBUG_BCI: methods rewritten, and those grown past the JIT's
 * inlining sizes (bci_result), printed at exit. */
static atomic_ulong n_methods, n_past_max_inline, n_past_freq_inline;
static atomic_int hooks_running; /* threads inside on_class_file_load */
/* The JVM keeps the bytes each class was loaded with (can_retransform_classes
 * taken before the hook was enabled), so `stop` can give them back. */
static bool restorable;
/* The class a start-up recording gave fields (a global ref), NULL if none:
 * a loaded class cannot lose fields, so it keeps them and its rewrite for
 * the JVM's life, and no later pass retransforms it. */
static jclass widened;

jclass hp_instr_tracker(void)
{
    return tracker;
}

jclass hp_instr_class(const char *class_name)
{
    for (int i = 0; i < n_client_classes; i++)
        if (strcmp(client_classes[i].name, class_name) == 0) return client_classes[i].k;
    return NULL;
}

/* Keeps `global` (a global ref) as the class `name`; NULL if it is NULL. */
static jclass remember_class(const char *name, jclass global)
{
    if (global == NULL || n_client_classes == MAX_CLIENTS) return NULL;
    client_classes[n_client_classes].name = name;
    client_classes[n_client_classes++].k = global;
    return global;
}

jclass hp_instr_define(JNIEnv *jni, const char *name, const unsigned char *bytes, size_t len)
{
    jclass k = hp_instr_class(name);
    if (k != NULL) return k;
    k = (*jni)->DefineClass(jni, name, NULL, (const jbyte *)bytes, (jsize)len);
    if (k == NULL) {
        /* Defined already, by another copy of the agent library. */
        (*jni)->ExceptionClear(jni);
        k = (*jni)->FindClass(jni, name);
        if (k == NULL) {
            (*jni)->ExceptionClear(jni);
            return NULL;
        }
    }
    jclass g = (*jni)->NewGlobalRef(jni, k);
    (*jni)->DeleteLocalRef(jni, k);
    return remember_class(name, g);
}

/* The tracker or a client's class: never rewritten. */
static bool is_hook_class(const char *name)
{
    if (strcmp(name, HP_TRACKER_CLASS) == 0) return true;
    for (int i = 0; i < n_clients; i++)
        if (clients[i].class_name && strcmp(clients[i].class_name, name) == 0) return true;
    return false;
}

void hp_instr_want(int mnum)
{
    hp_num_want(mnum);
}

void hp_instr_resolve(jvmtiEnv *jvmti, JNIEnv *jni)
{
    hp_num_resolve(jvmti, jni);
}

jmethodID hp_instr_method(int mnum)
{
    return hp_num_method_id(mnum);
}

/* What one rewrite collects through the bci numbering callbacks. */
struct numbering {
    uint32_t cnum;
    const char *class_name; /* internal form */
    bool again;             /* cnum and its methods' numbers are an earlier rewrite's */
    bool is_object;
    struct hp_intrinsics intrinsics;
    int *mnums;
    uint32_t n, cap;
    bool failed;
};

/* An allocating intrinsic is rewritten when a client counting allocations
 * asks for it. */
static bool rewrites_intrinsic(const char *owner, const char *name, const char *desc)
{
    for (int i = 0; i < n_clients; i++)
        if (clients[i].rewrites_intrinsic && clients[i].rewrites_intrinsic(owner, name, desc))
            return true;
    return false;
}

static int number_method(void *ctx, const char *name, const char *desc, uint16_t access)
{
    (void)access;
    struct numbering *nb = ctx;
    /* Object.<init> runs for every allocation, the tracker's own included:
     * an entry call there would recurse into the tracker. */
    if (nb->is_object && strcmp(name, "<init>") == 0) return BCI_SKIP;
    enum hp_intrinsic kind = hp_intrinsics_kind(&nb->intrinsics, name, desc);
    if (kind == HP_INTRINSIC ||
        (kind == HP_INTRINSIC_ALLOCATING && !rewrites_intrinsic(nb->class_name, name, desc)))
        return BCI_SKIP;
    /* Method-handle plumbing (intrinsics.h) counts as part of its caller,
     * as the hidden LambdaForms do; a client counting allocations keeps
     * its hooks, which may count objects made there. */
    if (kind == HP_MH_PLUMBING && hooks.new_obj_name == NULL) return BCI_SKIP;
    if (nb->n == nb->cap) {
        uint32_t cap = nb->cap ? 2 * nb->cap : 32;
        int *m = realloc(nb->mnums, sizeof *m * cap);
        if (m == NULL) return nb->failed = true, BCI_SKIP;
        nb->mnums = m;
        nb->cap = cap;
    }
    int mnum =
        nb->again ? hp_num_method_again(nb->cnum, name, desc) : hp_num_method(nb->cnum, name, desc);
    if (mnum < 0) return nb->failed = true, BCI_SKIP;
    nb->mnums[nb->n++] = mnum;
    return mnum;
}

static int number_site(void *ctx, const struct bci_site *site)
{
    struct numbering *nb = ctx;
    for (int i = 0; i < n_clients; i++)
        if (clients[i].site_number) return clients[i].site_number(clients[i].ctx, site, nb->cnum);
    return BCI_SKIP;
}

static int number_invoke(void *ctx, const struct bci_invoke *inv)
{
    struct numbering *nb = ctx;
    for (int i = 0; i < n_clients; i++)
        if (clients[i].invoke_number)
            return clients[i].invoke_number(clients[i].ctx, inv, nb->cnum);
    return BCI_SKIP;
}

static int marks_invoke(void *ctx, const struct bci_invoke *inv)
{
    (void)ctx;
    for (int i = 0; i < n_clients; i++)
        if (clients[i].invoke_marked) return clients[i].invoke_marked(clients[i].ctx, inv);
    return 0;
}

static void record_calls(void *ctx, const struct bci_method_calls *mc)
{
    (void)ctx;
    hp_frames_record(mc);
}

static int number_call(void *ctx, int mnum, const struct bci_call *call)
{
    (void)ctx;
    return hp_frames_call_number(mnum, call);
}

static void record_source(void *ctx, const uint8_t *name, uint16_t len)
{
    struct numbering *nb = ctx;
    hp_num_class_source(nb->cnum, name, len);
}

static void rewrite_class(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
                          const char *name, jobject pd, jint len, const unsigned char *data,
                          jint *new_len, unsigned char **new_data)
{
    (void)pd;
    char buf[1024];
    if (name == NULL) { /* defineClass(null, ...) */
        if (bci_class_name(data, (size_t)len, buf, sizeof buf) < 0) return;
        name = buf;
    }
    if (is_hook_class(name)) return;
    struct numbering nb = {.class_name = name, .is_object = strcmp(name, "java/lang/Object") == 0};
    nb.cnum = redefined ? hp_num_class_again(jni, name, loader) : 0;
    nb.again = nb.cnum != 0;
    if (!nb.again) nb.cnum = hp_num_class(jni, name, loader);
    if (nb.cnum == 0) return;
    hp_intrinsics_scan(data, (size_t)len, &nb.intrinsics);
    struct bci_hooks h = hooks;
    h.class_number = (int)nb.cnum;
    h.method_number = number_method;
    h.site_number = number_site;
    h.invoke_number = number_invoke;
    h.invoke_marked = marks_invoke;
    if (frames) {
        h.method_calls = record_calls;
        h.source_file = record_source;
        h.call_number = number_call;
    }
    h.ctx = &nb;
    struct bci_result r;
    int changed = bci_rewrite(data, (size_t)len, &h, &r);
    if (changed && nb.failed) {
        snprintf(r.reason, sizeof r.reason, "out of memory numbering methods");
        bci_free(&r);
        changed = 0;
    }
    unsigned char *out = NULL;
    if (changed && (*jvmti)->Allocate(jvmti, (jlong)r.len, &out) != JVMTI_ERROR_NONE) {
        snprintf(r.reason, sizeof r.reason, "JVM TI Allocate failed");
        changed = 0;
    }
    if (changed) {
        atomic_fetch_add(&n_methods, r.methods);
        atomic_fetch_add(&n_past_max_inline, r.past_max_inline);
        atomic_fetch_add(&n_past_freq_inline, r.past_freq_inline);
        memcpy(out, r.data, r.len);
        *new_data = out;
        *new_len = (jint)r.len;
        hp_num_class_methods(nb.cnum, nb.mnums, nb.n);
    } else if (debug && strcmp(r.reason, "nothing to inject") != 0) {
        fprintf(stderr, "HPROF: class %s left unchanged: %s\n", name, r.reason);
    }
    if (changed) bci_free(&r);
    free(nb.mnums);
    hp_intrinsics_free(&nb.intrinsics);
}

static void JNICALL on_class_file_load(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined,
                                       jobject loader, const char *name, jobject pd, jint len,
                                       const unsigned char *data, jint *new_len,
                                       unsigned char **new_data)
{
    atomic_fetch_add(&hooks_running, 1);
    hp_in_agent_enter();
    rewrite_class(jvmti, jni, redefined, loader, name, pd, len, data, new_len, new_data);
    hp_in_agent_leave(jvmti, jni);
    atomic_fetch_sub(&hooks_running, 1);
}

static jclass define(JNIEnv *jni, const char *name, const unsigned char *bytes, size_t len)
{
    jclass k = (*jni)->DefineClass(jni, name, NULL, (const jbyte *)bytes, (jsize)len);
    if (k == NULL) {
        (*jni)->ExceptionDescribe(jni);
        /* Classes rewritten so far call the class: the VM cannot go on. */
        hp_fatal(HP_AGENT_EXIT_FATAL, "cannot define %s", name);
    }
    jclass g = (*jni)->NewGlobalRef(jni, k);
    if (g == NULL) hp_fatal(HP_AGENT_EXIT_FATAL, "out of memory defining %s", name);
    return g;
}

/* Early VMStart: JNI works, no Java code has run yet. */
static void JNICALL on_vm_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti;
    bool field = hooks.fields == tracker_thread_fields;
    tracker = define(jni, HP_TRACKER_CLASS, field ? hp_tracker_class : hp_tracker_table_class,
                     field ? hp_tracker_class_len : hp_tracker_table_class_len);
    for (int i = 0; i < n_clients; i++) {
        const struct hp_instr_client *c = &clients[i];
        if (c->class_name)
            remember_class(c->class_name, define(jni, c->class_name, c->class_bytes, c->class_len));
    }
}

static void print_growth(void)
{
    fprintf(
        stderr, "HPROF: rewritten methods: %lu, grown past 35 bytes: %lu, past 325 bytes: %lu\n",
        atomic_load(&n_methods), atomic_load(&n_past_max_inline), atomic_load(&n_past_freq_inline));
}

/* Adds one kind of injection; two clients cannot share one. */
static bool claim(const char **name, const char **desc, const char *n, const char *d)
{
    if (n == NULL) return true;
    if (*name != NULL) return false;
    *name = n;
    *desc = d;
    return true;
}

bool hp_instr_in_use(void)
{
    return n_clients > 0;
}

/* What both routes inject and hook. */
static bool hook_class_loads(struct hp_setup *s, const jvmtiEvent *ev, size_t n)
{
    s->events->ClassFileLoadHook = on_class_file_load;
    hooks.tracker_class = HP_TRACKER_CLASS;
    hooks.exit_catch_all = 1;
    static bool growth_printed_at_exit;
    debug = getenv("HPROF_DEBUG_BCI") != NULL;
    if (debug && !growth_printed_at_exit) growth_printed_at_exit = atexit(print_growth) == 0;
    for (size_t i = 0; i < n; i++)
        if (!hp_jvmti_ok(hp.jvmti,
                         (*hp.jvmti)->SetEventNotificationMode(hp.jvmti, JVMTI_ENABLE, ev[i], NULL),
                         "SetEventNotificationMode"))
            return false;
    return true;
}

/* Makes the tracker's natives findable during the attach (see
 * HprofTracker.bindNatives); false if that failed. */
static bool bind_natives(JNIEnv *jni)
{
    Dl_info self;
    if (!dladdr((void *)bind_natives, &self) || self.dli_fname == NULL) return false;
    jmethodID m = (*jni)->GetStaticMethodID(jni, tracker, "bindNatives", "(Ljava/lang/String;)Z");
    jstring path = m ? (*jni)->NewStringUTF(jni, self.dli_fname) : NULL;
    jboolean ok = path ? (*jni)->CallStaticBooleanMethod(jni, tracker, m, path) : JNI_FALSE;
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        ok = JNI_FALSE;
    }
    if (path) (*jni)->DeleteLocalRef(jni, path);
    return ok;
}

/* Attached: the VM is live, so the tracker is defined now (or was, by an
 * earlier recording: a class cannot be undefined), and the classes already
 * loaded are rewritten by hp_instr_attach once the capability is granted. */
static bool first_live_client(struct hp_setup *s, JNIEnv *jni)
{
    if (!s->potential.can_retransform_classes) {
        hp_error("this JVM cannot retransform classes (JVM TI can_retransform_classes): "
                 "cpu=times and cpu=old cannot start in a running JVM");
        return false;
    }
    if (tracker == NULL && jni != NULL) {
        jclass k =
            (*jni)->DefineClass(jni, HP_TRACKER_CLASS, NULL, (const jbyte *)hp_tracker_table_class,
                                (jsize)hp_tracker_table_class_len);
        if (k != NULL) tracker = (*jni)->NewGlobalRef(jni, k);
        if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    }
    if (tracker == NULL) {
        hp_error("cannot define %s in the running JVM", HP_TRACKER_CLASS);
        return false;
    }
    if (!bind_natives(jni)) {
        hp_error("cannot bind the natives of %s in the running JVM", HP_TRACKER_CLASS);
        return false;
    }
    s->wanted->can_retransform_classes = 1;
    restorable = true;
    /* The hook is enabled by hp_instr_attach: enabled before the capability
     * is granted, it would make the JVM refuse the capability. */
    return hook_class_loads(s, NULL, 0);
}

static bool first_client(struct hp_setup *s)
{
    const jvmtiCapabilities *p = &s->potential;
    if (hp.attached) return first_live_client(s, hp_jni());
    if (!p->can_generate_all_class_hook_events || !p->can_generate_early_class_hook_events ||
        !p->can_generate_early_vmstart) {
        hp_error("this JVM cannot rewrite classes from the start (JVM TI early class hooks)");
        return false;
    }
    s->wanted->can_generate_all_class_hook_events = 1;
    s->wanted->can_generate_early_class_hook_events = 1;
    s->wanted->can_generate_early_vmstart = 1;
    /* The JVM's own message says only that it could not map the archive. */
    char sharing[32];
    hp_jvm_args_mandatory_sharing_here(sharing, sizeof sharing);
    if (sharing[0] != '\0')
        hp_error("%s makes class data sharing mandatory, and the JVM turns it off for an agent "
                 "that rewrites classes from the first one loaded (exact heap=sites, heap=all, "
                 "cpu=times, cpu=old): it will refuse to start. Leave out %s, or use "
                 "heap=sites,alloc_interval=N or cpu=samples",
                 sharing, sharing);
    /* Now, before the hook is enabled: the JVM refuses it once the hook
     * was on without it. */
    jvmtiCapabilities retransform = {.can_retransform_classes = 1};
    restorable = p->can_retransform_classes &&
                 hp_jvmti_ok(hp.jvmti, (*hp.jvmti)->AddCapabilities(hp.jvmti, &retransform),
                             "AddCapabilities");
    s->events->VMStart = on_vm_start;
    const jvmtiEvent ev[] = {JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, JVMTI_EVENT_VM_START};
    return hook_class_loads(s, ev, sizeof ev / sizeof ev[0]);
}

/* The classes no rewrite or restore touches: the hook classes and the one
 * given fields. Fills skip (MAX_CLIENTS + 2 entries) and returns their
 * number. */
static int kept_as_they_are(jclass *skip)
{
    int n = 0;
    skip[n++] = tracker;
    for (int i = 0; i < n_client_classes; i++)
        skip[n++] = client_classes[i].k;
    if (widened) skip[n++] = widened;
    return n;
}

struct hp_retransform_cost hp_instr_attach(jvmtiEnv *jvmti, JNIEnv *jni)
{
    struct hp_retransform_cost none = {0};
    if (!hp_jvmti_ok(jvmti,
                     (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                                        JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL),
                     "SetEventNotificationMode"))
        return none;
    jclass skip[MAX_CLIENTS + 2];
    return hp_retransform_loaded(jvmti, jni, skip, kept_as_they_are(skip), "rewrite");
}

const char *hp_instr_stop_refusal(void)
{
    if (n_clients == 0 || restorable) return NULL;
    return "this JVM did not keep the bytes of the classes this recording rewrote (JVM TI "
           "can_retransform_classes)";
}

/* Calls the tracker's static void method `name`; false if it failed. */
static bool call_tracker(JNIEnv *jni, const char *name)
{
    jmethodID m = tracker ? (*jni)->GetStaticMethodID(jni, tracker, name, "()V") : NULL;
    if (m) (*jni)->CallStaticVoidMethod(jni, tracker, m);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionDescribe(jni);
        return false;
    }
    return m != NULL;
}

bool hp_instr_engage(JNIEnv *jni)
{
    return call_tracker(jni, "engage");
}

/* At the stop of the recording that gave hooks.field_class its fields. */
static void keep_widened(JNIEnv *jni)
{
    jclass k = (*jni)->FindClass(jni, hooks.field_class);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    widened = k ? (*jni)->NewGlobalRef(jni, k) : NULL;
    if (k) (*jni)->DeleteLocalRef(jni, k);
    if (widened)
        hp_note("class %s keeps the fields and the rewrite this recording gave it (a loaded "
                "class cannot lose fields); its calls to the disengaged tracker record nothing",
                hooks.field_class);
}

void hp_instr_detach(jvmtiEnv *jvmti, JNIEnv *jni)
{
    /* Rewritten code still on stacks goes on calling the tracker: it must
     * record nothing before the classes change back under it. */
    call_tracker(jni, "disengage");
    hp_jvmti_ok(jvmti,
                (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE,
                                                   JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL),
                "SetEventNotificationMode");
    /* A class whose rewrite is under way is defined rewritten: wait for it,
     * so that the list of loaded classes below holds it. */
    const struct timespec ms = {0, 1000000};
    while (atomic_load(&hooks_running) > 0)
        nanosleep(&ms, NULL);
    if (hooks.field_class) keep_widened(jni);
    /* With the hook off, a retransformation gives each class the bytes it
     * was loaded with (the JVM kept them when the hook first changed it). */
    jclass skip[MAX_CLIENTS + 2];
    struct hp_retransform_cost c =
        hp_retransform_loaded(jvmti, jni, skip, kept_as_they_are(skip), "restore");
    hp_verbose("HPROF: %d of %d loaded classes restored in %.1f ms (%.1f ms of CPU)\n", c.done,
               c.loaded, (double)c.wall_ns / 1e6, (double)c.cpu_ns / 1e6);
    memset(clients, 0, sizeof clients);
    n_clients = 0;
    memset(&hooks, 0, sizeof hooks);
    frames = false;
}

bool hp_instr_add(struct hp_setup *s, const struct hp_instr_client *c)
{
    if (n_clients == MAX_CLIENTS) {
        hp_error("too many bytecode instrumentation clients");
        return false;
    }
    if (hp.attached && c->field_class) {
        hp_error("a running JVM cannot give %s (loaded) new fields", c->field_class);
        return false;
    }
    if (hp.attached && c->class_name &&
        !hp_instr_define(hp_jni(), c->class_name, c->class_bytes, c->class_len)) {
        hp_error("cannot define %s in the running JVM", c->class_name);
        return false;
    }
    if (n_clients == 0 && !first_client(s)) return false;
    struct bci_hooks *h = &hooks;
    if (!claim(&h->entry_name, &h->entry_desc, c->entry_name, c->entry_desc) ||
        !claim(&h->exit_name, &h->exit_desc, c->exit_name, c->exit_desc) ||
        !claim(&h->leaf_name, &h->leaf_desc, c->leaf_name, c->leaf_desc) ||
        !claim(&h->switch_from_name, &h->switch_from_desc, c->switch_from_name,
               c->switch_from_desc) ||
        !claim(&h->switch_to_name, &h->switch_to_desc, c->switch_to_name, c->switch_to_desc) ||
        !claim(&h->resume_name, &h->resume_desc, c->resume_name, c->resume_desc) ||
        !claim(&h->call_name, &h->call_desc, c->call_name, c->call_desc) ||
        !claim(&h->new_obj_name, &h->new_obj_desc, c->new_obj_name, c->new_obj_desc) ||
        !claim(&h->new_array_name, &h->new_array_desc, c->new_array_name, c->new_array_desc) ||
        !claim(&h->object_init_name, &h->object_init_desc, c->object_init_name,
               c->object_init_desc) ||
        !claim(&h->invoke_name, &h->invoke_desc, c->invoke_name, c->invoke_desc) ||
        !claim(&h->mark_name, &h->mark_desc, c->mark_name, c->mark_desc)) {
        hp_error("two modes claim the same bytecode injection");
        return false;
    }
    const char *field_class = c->field_class;
    const struct bci_field *fields = c->fields;
    if (c->tracker_thread_field && !hp.attached) {
        field_class = "java/lang/Thread";
        fields = tracker_thread_fields;
    }
    if (field_class) {
        if (h->field_class) {
            hp_error("two modes add a field");
            return false;
        }
        h->field_class = field_class;
        h->fields = fields;
    }
    if (c->entry_name || c->exit_name) {
        h->method_class = c->class_name;
        h->entry_exit_skip_leaves = c->entry_exit_skip_leaves;
        h->entry_local = c->entry_local;
        h->long_number = c->long_number;
    }
    if (c->new_obj_name || c->new_array_name || c->object_init_name || c->invoke_name ||
        c->mark_name) {
        h->alloc_class = c->class_name;
        h->alloc_local = c->alloc_local;
    }
    frames |= c->frames;
    clients[n_clients++] = *c;
    return true;
}

void *hp_instr_copy_array(JNIEnv *jni, jobject obj, jfieldID f, jint n, bool is_long)
{
    jarray a = (*jni)->GetObjectField(jni, obj, f);
    void *out = malloc((is_long ? sizeof(jlong) : sizeof(jint)) * (size_t)(n ? n : 1));
    bool ok = a != NULL && out != NULL && (*jni)->GetArrayLength(jni, a) >= n;
    if (ok && is_long)
        (*jni)->GetLongArrayRegion(jni, a, 0, n, out);
    else if (ok)
        (*jni)->GetIntArrayRegion(jni, a, 0, n, out);
    if (a) (*jni)->DeleteLocalRef(jni, a);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        ok = false;
    }
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}
