/* The one bytecode-instrumentation service of the agent. A JVM TI env has a
 * single ClassFileLoadHook, and several modes inject calls (cpu=times: method
 * entry/exit; heap=sites: allocations), so this component owns the hook and
 * the tracker class java.lang.HprofTracker that the injected calls target.
 * Each mode declares the injection kinds it wants; their union is applied in
 * one bci_rewrite pass per class, from the first class the VM loads.
 *
 * The tracker is defined into the boot loader's java.lang package (so into
 * java.base, readable by every module, exported to all) by JNI DefineClass at
 * the early VMStart event, before any Java code has run: classes loaded in
 * the primordial phase are rewritten too, and their first call resolves the
 * already defined tracker. Attached to a running JVM, it is defined at the
 * attach (once: later recordings reuse it) and the classes already loaded
 * are retransformed. Either way `stop` retransforms them back (started with
 * the JVM, the agent takes can_retransform_classes before enabling the hook,
 * so that HotSpot keeps each rewritten class's own bytes). Classes and methods are
 * numbered (cnum, mnum; mnum is unique across all classes), and numbers map
 * back to jmethodIDs.
 *
 * Never instrumented: the tracker itself, hidden classes (the VM sends them
 * no ClassFileLoadHook), Object.<init> (it runs for the tracker's own
 * allocations) and @IntrinsicCandidate methods (see intrinsics.h). Set
 * HPROF_DEBUG_BCI in the environment to log classes left unchanged and why.
 * The tracker's Java source is java/java/lang/HprofTracker.java: a mode adds
 * its injected methods there. */
#ifndef HPROF_INSTRUMENT_H
#define HPROF_INSTRUMENT_H

#include "agent/core/mode.h"
#include "agent/instrument/retransform.h"

#include "bci/bci.h"
#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_TRACKER_CLASS "java/lang/HprofTracker"

/* What a mode asks for. Method names are HprofTracker methods; NULL names
 * leave a kind out. */
struct hp_instr_client {
    const char *entry_name, *entry_desc; /* (II)V: cnum, mnum; (I)I with entry_local */
    const char *exit_name, *exit_desc;   /* (II)V, also on exceptional exits; (I)V */
    /* Entry's result kept in a local for exit and resume (bci entry_local:
     * 0, BCI_LOCAL_INT or BCI_LOCAL_LONG), and passed to the allocation
     * hooks too (bci alloc_local). */
    int entry_local;
    int64_t (*long_number)(int number); /* with BCI_LOCAL_LONG (bci long_number) */
    bool alloc_local;
    const char *resume_name, *resume_desc; /* (I)V or (JI)V at exception handlers */
    /* (II)V or (JI)V before the calls that frames.h numbers (bci call). */
    const char *call_name, *call_desc;
    const char *leaf_name, *leaf_desc; /* (II)V: short leaves' one call (bci.h) */
    /* (II)V: entry and exits of methods that switch the current thread. */
    const char *switch_from_name, *switch_from_desc, *switch_to_name, *switch_to_desc;
    const char *new_obj_name, *new_obj_desc;
    const char *new_array_name, *new_array_desc;
    const char *object_init_name, *object_init_desc;
    const char *invoke_name, *invoke_desc; /* (Ljava/lang/Object;I)V, see bci.h */
    /* Allocation site numbers (NULL: BCI_SKIP) of class cnum. */
    int (*site_number)(void *ctx, const struct bci_site *site, uint32_t cnum);
    /* Numbers of the invocations to hook (NULL: none). */
    int (*invoke_number)(void *ctx, const struct bci_invoke *inv, uint32_t cnum);
    /* Of those, the ones marked before the call (bci invoke_marked, mark). */
    bool (*invoke_marked)(void *ctx, const struct bci_invoke *inv);
    const char *mark_name, *mark_desc; /* (Ljava/lang/Object;)V */
    /* A client counting allocations: true for an @IntrinsicCandidate method
     * whose bytecode allocates and that is to be rewritten like any other
     * method, false for those whose JIT replacements allocate too (counted
     * at their calls, or not at all). NULL: every intrinsic is left alone
     * (intrinsics.h). */
    bool (*rewrites_intrinsic)(const char *owner, const char *name, const char *desc);
    void *ctx;
    /* The class the client's hooks call when not HprofTracker (NULL): a
     * class file (internal name, bytes) defined like HprofTracker. */
    const char *class_name;
    const unsigned char *class_bytes;
    size_t class_len;
    /* Fields appended to one class (bci field_class), NULL: none. */
    const char *field_class;
    const struct bci_field *fields;
    /* HprofTracker finds each thread's state in a field appended to
     * java.lang.Thread (one load a call), not in its table; ignored
     * attached (a loaded class cannot get fields). With no field_class. */
    bool tracker_thread_field;
    /* Entry/exit only in methods that invoke or allocate (bci
     * entry_exit_skip_leaves): enough for a shadow stack of callers. */
    bool entry_exit_skip_leaves;
    /* The client's traces are made by hp_instr_trace (frames.h): keep the
     * names and call sites it needs. */
    bool frames;
};
/* The wait of a tracker's spin lock once spinning did not get it (round 0,
 * 1, ...): yields the CPU, then sleeps, so that a holder descheduled among
 * hundreds of waiting threads runs (they burned 30 s of CPU for 0.2 s of
 * work, 2,000 short threads on 2 cores). Native code keeps a virtual thread
 * on its carrier, as the lock needs. Negative: returns at once. */
void hp_instr_backoff(int round);

/* Natives of HprofTracker are exported JNI functions of the agent library
 * (Java_java_lang_HprofTracker_<name>): the VM looks them up there. Binding
 * them with RegisterNatives would make JDK 17+ warn on every run (natives of
 * a boot class registered from native code). */

/* From a mode's on_load: asks for capabilities and events (first call) and
 * adds the client (at most 4). False, after hp_error(), when the JVM cannot
 * do what is needed. */
bool hp_instr_add(struct hp_setup *s, const struct hp_instr_client *c);

/* True once a mode is a client: classes are being rewritten as they load. */
bool hp_instr_in_use(void);

/* Why `stop` cannot end the recording and give the rewritten classes
 * their own bytes back, NULL if it can: no client, or the JVM keeps those
 * bytes (can_retransform_classes, taken at start-up before the hook is
 * enabled, or at the attach). */
const char *hp_instr_stop_refusal(void);

/* Attached (hp.attached), after the capabilities are granted and before the
 * recording goes live: rewrites the classes loaded so far. */
struct hp_retransform_cost hp_instr_attach(jvmtiEnv *jvmti, JNIEnv *jni);
/* `stop` (attached or started with the JVM; see hp_instr_stop_refusal),
 * after the last dump: the tracker records nothing more, every loaded class
 * gets its own bytes back, the hook is off and the clients are forgotten,
 * so that a later recording starts afresh with the tracker as it is
 * defined. Left as they are, by this and every later pass: the hook
 * classes, and the class a client gave fields (java.lang.Thread under
 * exact heap=sites), which cannot lose them; the client's own stop
 * disengages the hooks left there. */
void hp_instr_detach(jvmtiEnv *jvmti, JNIEnv *jni);

/* The tracker class (a global ref), NULL until defined or if that failed. */
jclass hp_instr_tracker(void);
/* A client's own class (a global ref), NULL until defined. */
jclass hp_instr_class(const char *class_name);
/* Attached: a client's class, defined now from `bytes` unless this JVM has
 * it already (defined by an earlier recording, whose class is then returned
 * as it is); NULL if that failed. */
jclass hp_instr_define(JNIEnv *jni, const char *name, const unsigned char *bytes, size_t len);
/* From VM init on (live phase): lets the injected calls record. Idempotent;
 * false if the tracker is missing. */
bool hp_instr_engage(JNIEnv *jni);

/* A malloc'd copy of the first n elements (jint, or jlong if is_long) of
 * the array in field f of a tracker object; NULL if it is missing, shorter
 * than n, or memory ran out. The trackers' counters are read this way. */
void *hp_instr_copy_array(JNIEnv *jni, jobject obj, jfieldID f, jint n, bool is_long);

/* Marks mnum's class for the next hp_instr_resolve. */
void hp_instr_want(int mnum);
/* Resolves the jmethodIDs of the wanted classes loaded now, once each. */
void hp_instr_resolve(jvmtiEnv *jvmti, JNIEnv *jni);
/* The jmethodID of mnum, NULL if not (yet) resolved or out of range. */
jmethodID hp_instr_method(int mnum);

#endif
