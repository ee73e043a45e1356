/* The exact engine of heap=sites: rewritten allocation sites count in Java
 * (java.lang.HprofSites, per thread, no JNI per allocation; natives.c), JVM
 * TI VMObjectAlloc adds what the JVM allocates itself (vm_alloc.c), and
 * each dump reads the counts (tally.c) and counts the live objects from a
 * tagged subset and one heap walk (collect.c). This file sets it up: the
 * rewriter client, the tracker class, the threads' shadow stacks; attached
 * to a running JVM, the tracker's table build (sites_class.h), and `stop`. */
#include "agent/modes/heap_sites/engine.h"
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/instrument/instrument.h"
#include "agent/modes/heap_sites/exact/bsite.h"
#include "agent/modes/heap_sites/exact/exact.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/modes/heap_sites/exact/sites_class.h"
#include "agent/modes/heap_sites/site.h"

#include <string.h>

static jclass tracker;
static jmethodID m_give_stack;
/* The tracker's methods are looked up and shadow stacks are wanted. */
static atomic_bool stacks;
/* GC events wake the dropping of dead objects' references (survivors.c). */
static bool gc_events;
/* VMObjectAlloc only in windows around the natives (native_windows.c). */
static bool windows;

bool hp_sites_exact_selected(void)
{
    /* cpu=times owns the entry/exit hooks; sampling needs SampledObjectAlloc;
     * heap=all attached to a running JVM, where the objects made before the
     * attach have no trace to cite, keeps the JVM TI route. */
    return hp.opt.alloc_interval == 0 && !hp.opt.cpu_times &&
           hp.opt.depth <= HP_SITES_EXACT_CAPACITY && !(hp.opt.heap_dump && hp.attached);
}

/* Per thread: the tracker state, the caller window, the shadow stack and
 * its height. */
static const struct bci_field thread_fields[] = {{"hprofSites", "Ljava/lang/HprofSites;"},
                                                 {"hprofWin", "J"},
                                                 {"hprofStk", "[I"},
                                                 {"hprofSp", "I"},
                                                 {NULL, NULL}};

/* Attached: the tracker's table build, defined now or by an earlier attach;
 * false (after hp_error) if the class this JVM has cannot serve this
 * recording: the fields build, or settings the JIT holds as constants
 * (HprofSites.disengage) that this depth= would change. */
static bool attached_tracker_fits(JNIEnv *jni)
{
    jclass k =
        hp_instr_define(jni, HP_SITES_CLASS, hp_sites_attach_class, hp_sites_attach_class_len);
    jfieldID fields = k ? (*jni)->GetStaticFieldID(jni, k, "THREAD_FIELDS", "Z") : NULL;
    jfieldID width = k ? (*jni)->GetStaticFieldID(jni, k, "W", "I") : NULL;
    if (fields == NULL || width == NULL) {
        (*jni)->ExceptionClear(jni);
        hp_error("heap=sites: cannot define %s in the running JVM", HP_SITES_CLASS);
        return false;
    }
    if ((*jni)->GetStaticBooleanField(jni, k, fields)) {
        hp_error("heap=sites: this JVM's java.lang.HprofSites keeps its state in Thread fields "
                 "(a recording started with the JVM): exact heap=sites cannot attach; attach "
                 "heap=sites with alloc_interval=BYTES (sampled)");
        return false;
    }
    jint had = (*jni)->GetStaticIntField(jni, k, width);
    jint want = hp.opt.depth > 1 ? 1 + hp.opt.depth : 1;
    if (had != 0 && had != want) {
        hp_error("heap=sites: exact heap=sites was attached to this JVM before with depth=%d, "
                 "which its tracker class keeps: attach with that depth, or with "
                 "alloc_interval=BYTES (sampled)",
                 had > 1 ? had - 1 : 1);
        return false;
    }
    return true;
}

/* Method or call n as the window's newest entry (HprofSites.enterWin):
 * n + 1 in bits 42..62, 0 (unknown) for a number beyond its 21 bits. */
static int64_t window_slot(int n)
{
    enum { WIN_BITS = 21, WIN_TOP = 42 };
    return n >= 0 && n < (1 << WIN_BITS) - 1 ? (int64_t)(n + 1) << WIN_TOP : 0;
}

static bool on_load(struct hp_setup *s)
{
    if (!s->potential.can_generate_vm_object_alloc_events || !s->potential.can_tag_objects ||
        !s->potential.can_get_bytecodes) {
        hp_error("heap=sites needs JVM TI VMObjectAlloc, object tags and GetBytecodes");
        return false;
    }
    s->wanted->can_generate_vm_object_alloc_events = 1;
    s->wanted->can_tag_objects = 1;
    s->wanted->can_get_bytecodes = 1;
    s->events->VMObjectAlloc = hp_sites_exact_on_vm_object_alloc;
    windows = hp_sites_exact_windows_wanted(s);
    if (hp.attached && !attached_tracker_fits(hp_jni())) return false;
    hp_key_table_init(hp.opt.depth > 1 ? 1 + hp.opt.depth : 1);
    hp_site_table_init();
    if (hp_sites_exact_tags_all()) hp_site_tags_use(&hp_sites_exact_tags);
    /* The objects a slot tags are tagged only if alive at a dump
     * (survivors.c): most die young, and a SetTag each made JVM TI's tag
     * map lookup alone 4 % of javac's CPU on JDK 17. */
    gc_events = s->potential.can_generate_garbage_collection_events;
    s->wanted->can_generate_garbage_collection_events = gc_events;
    s->events->GarbageCollectionFinish = hp_sites_exact_on_gc_finish;
    struct hp_instr_client c = {
        .new_obj_name = "newObj",
        .new_obj_desc = "(I)V",
        .new_array_name = "newArray",
        .new_array_desc = "(Ljava/lang/Object;I)V",
        .object_init_name = "objInit",
        .object_init_desc = "(Ljava/lang/Object;)V",
        .invoke_name = "invoked",
        .invoke_desc = "(Ljava/lang/Object;I)V",
        .site_number = hp_bsite_number,
        .invoke_number = hp_bsite_invoke,
        /* Start-up build: vm_alloc.c reads the mark through Thread's field. */
        .invoke_marked = hp.attached ? NULL : hp_bsite_marked,
        .mark_name = hp.attached ? NULL : "vmMark",
        .mark_desc = "(Ljava/lang/Object;)V",
        .rewrites_intrinsic = hp_bsite_rewrites_intrinsic,
        /* Each thread's tracker state, caller window and shadow stack, one
         * load away; attached, in the tracker's table. */
        .field_class = hp.attached ? NULL : "java/lang/Thread",
        .fields = hp.attached ? NULL : thread_fields,
        .class_name = HP_SITES_CLASS,
        .class_bytes = hp.attached ? hp_sites_attach_class : hp_sites_class,
        .class_len = hp.attached ? hp_sites_attach_class_len : hp_sites_class_len,
        .frames = true,
    };
    if (hp.opt.depth > 1 && !hp_sites_exact_on_stack()) {
        c.entry_name = "enterWin";
        c.entry_desc = "(J)J";
        c.exit_name = "exitWin";
        c.exit_desc = "(J)V";
        c.resume_name = "resumeWin";
        c.resume_desc = "(JJ)V";
        c.call_name = "callWin";
        c.call_desc = "(JJ)V";
        c.entry_local = BCI_LOCAL_LONG;
        c.long_number = window_slot;
        c.alloc_local = true;
        c.new_obj_desc = "(IJ)V";
        c.new_array_desc = "(Ljava/lang/Object;IJ)V";
        c.invoke_desc = "(Ljava/lang/Object;IJ)V";
        c.entry_exit_skip_leaves = true;
    } else if (hp.opt.depth > 1) {
        c.entry_name = "enter";
        c.entry_desc = "(I)I";
        c.exit_name = "exit";
        c.exit_desc = "(I)V";
        c.resume_name = "resume";
        c.resume_desc = "(I)V";
        c.call_name = "call";
        c.call_desc = "(II)V";
        c.entry_local = BCI_LOCAL_INT;
        c.entry_exit_skip_leaves = true;
    }
    return hp_instr_add(s, &c);
}

/* Objects that exist before counting starts are tagged (site bits 0), so
 * that the live count never takes them for uncounted allocations. */
static jint JNICALL tag_existing(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                                 void *user_data)
{
    (void)class_tag, (void)size, (void)length, (void)user_data;
    *tag_ptr = (jlong)hp_objid_new(0);
    return 0;
}

static void give_stack(JNIEnv *jni, jthread thread)
{
    (*jni)->CallStaticVoidMethod(jni, tracker, m_give_stack, thread);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
}

/* Shadow stacks for the threads running at VM init; later ones get theirs
 * at ThreadStart (thread_start). */
static void give_stacks(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetAllThreads(jvmti, &n, &threads), "GetAllThreads")) return;
    for (jint i = 0; i < n; i++) {
        give_stack(jni, threads[i]);
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
}

/* On a starting thread, before its first Java frame: its shadow stack. */
static void thread_start(JNIEnv *jni, jthread thread, const struct hp_thread *t)
{
    if (atomic_load(&stacks) && !t->agent) give_stack(jni, thread);
}

static void vm_init(jvmtiEnv *jvmti, JNIEnv *jni)
{
    tracker = hp_instr_class(HP_SITES_CLASS);
    jmethodID engage = tracker ? (*jni)->GetStaticMethodID(jni, tracker, "engage", "()V") : NULL;
    m_give_stack =
        tracker ? (*jni)->GetStaticMethodID(jni, tracker, "giveStack", "(Ljava/lang/Thread;)V")
                : NULL;
    bool tally_ready = tracker && hp_sites_exact_tally_init(jni, tracker);
    if ((*jni)->ExceptionCheck(jni) || !engage || !m_give_stack || !tally_ready) {
        (*jni)->ExceptionClear(jni);
        tracker = NULL;
        hp_error("heap=sites: the tracker class is not usable; no SITES data");
        return;
    }
    if (!hp_sites_exact_find_natives(jni)) {
        tracker = NULL;
        hp_error("heap=sites: cannot find the allocating natives; no SITES data");
        return;
    }
    if (!hp_sites_exact_class_keys_init(jni)) {
        tracker = NULL;
        return;
    }
    if (!hp_sites_exact_learn_layout(jvmti, jni)) {
        tracker = NULL;
        hp_error("heap=sites: cannot learn the JVM's array layout; no SITES data");
        return;
    }
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = tag_existing;
    hp_sites_exact_tags_allowed(true);
    hp_jvmti_ok(jvmti,
                (*jvmti)->IterateThroughHeap(jvmti, JVMTI_HEAP_FILTER_TAGGED, NULL, &cb, NULL),
                "IterateThroughHeap");
    (*jni)->CallStaticVoidMethod(jni, tracker, engage);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionDescribe(jni);
        tracker = NULL;
        hp_error("heap=sites: the tracker class could not start; no SITES data");
        return;
    }
    /* ThreadStart may already run on other threads: from here on it gives
     * stacks too (giveStack makes one stack per thread). */
    atomic_store(&stacks, hp_sites_exact_on_stack() && !hp.attached);
    if (atomic_load(&stacks)) give_stacks(jvmti, jni);
    if (windows) hp_sites_exact_windows_start(jvmti, jni);
    if (!hp.attached && !hp_sites_exact_jni_wrap(jvmti, jni, windows)) windows = false;
    hp_sites_exact_vm_alloc_record(jvmti, true, !windows);
    /* Without it, every object is tagged as it is counted. */
    if (gc_events) hp_sites_exact_survivors_start(jvmti, jni);
}

static void vm_death(jvmtiEnv *jvmti)
{
    hp_sites_exact_tags_allowed(false);
    hp_sites_exact_survivors_stop();
    hp_sites_exact_vm_alloc_record(jvmti, false, true);
}

static void thread_end(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_thread *t)
{
    if (tracker == NULL || t->agent) return;
    hp_sites_exact_fold(jvmti, jni, t);
}

static bool count_live(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live)
{
    memset(live, 0, sizeof *live);
    if (tracker == NULL) return false;
    return hp_sites_exact_collect(jvmti, jni, live);
}

/* Both act on the sampled engine's recording and tags. */
static void control(const struct hp_request *r)
{
    hp_error("net= CONTROL %s is not available on the exact route of heap=sites",
             r->kind == HP_REQ_CLEAR_SITES ? "clear sites" : "alloc tracking");
}

/* `stop`, after the last dump and the classes' restore: the tracker
 * counts nothing more, and no native of it runs once this returns (the JVM
 * TI environment goes next). */
static void stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jmethodID disengage =
        tracker ? (*jni)->GetStaticMethodID(jni, tracker, "disengage", "()V") : NULL;
    if (disengage) (*jni)->CallStaticVoidMethod(jni, tracker, disengage);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionDescribe(jni);
    hp_sites_exact_tags_allowed(false);
    /* vm_death ended the tagger; no weak reference outlives the recording
     * (its tags go with the JVM TI environment). */
    hp_sites_exact_survivors_drain(jvmti, jni);
    hp_sites_exact_vm_alloc_record(jvmti, false, true);
    hp_site_table_forget();
    /* heap=all's keys in tags (start-up only) mean nothing to a later
     * recording, whose tags carry sites. */
    hp_site_tags_use(NULL);
    atomic_store(&stacks, false);
    tracker = NULL;
}

const struct hp_sites_engine hp_sites_exact_engine = {
    .on_load = on_load,
    .vm_init = vm_init,
    .thread_start = thread_start,
    .thread_end = thread_end,
    .count_live = count_live,
    .vm_death = vm_death,
    .stop = stop,
    .control = control,
};
