/* The exact engine of heap=sites (its interface to mode.c is engine.h):
 * what its files share. engine.c sets it up, natives.c serves the tracker
 * java.lang.HprofSites, vm_alloc.c counts what the JVM allocates itself
 * (from JDK 22 in native_windows.c's windows and through jni_alloc.c),
 * tally.c reads the tracker's counts and collect.c turns them into sites
 * and live counts at a dump. See ../README.md. */
#ifndef HPROF_HEAP_SITES_EXACT_H
#define HPROF_HEAP_SITES_EXACT_H

#include "agent/core/agent.h"
#include "agent/modes/heap_sites/engine.h"
#include "agent/modes/heap_sites/exact/key.h"
#include "agent/modes/heap_sites/site.h"

#include <jvmti.h>
#include <stdbool.h>

#define HP_SITES_CLASS "java/lang/HprofSites"
/* The exact route's capacity: a key holds the bytecode site and at most
 * this many callers (HP_KEY_MAX_INTS ints), well below the depth limit
 * every mode has (HP_MAX_DEPTH, core/options.h). A deeper depth= takes the
 * sampled engine (hp_sites_exact_selected). */
#define HP_SITES_EXACT_CAPACITY (HP_KEY_MAX_INTS - 1)
/* Up to this depth the callers come from a window of three methods in one
 * long (HprofSites.enterWin), deeper from a shadow stack. */
#define HP_SITES_WINDOW_DEPTH 4

/* Callers from the shadow stack (deeper than the window holds). */
static inline bool hp_sites_exact_on_stack(void)
{
    return hp.opt.depth > HP_SITES_WINDOW_DEPTH;
}

/* heap=all: every object a slot counts is tagged with its key, so the heap
 * dump cites each one's trace (heap=sites alone tags a subset). */
static inline bool hp_sites_exact_tags_all(void)
{
    return hp.opt.heap_dump;
}

/* class_keys.c: what the tracker keeps of class `c` (HprofSites.classKey):
 * `c` itself if it is never unloaded, else a new WeakReference to it; NULL
 * on failure. init (VM init, before the tracker engages) false, after an
 * error message, if references cannot be made. */
bool hp_sites_exact_class_keys_init(JNIEnv *jni);
jobject hp_sites_exact_class_key(jvmtiEnv *jvmti, JNIEnv *jni, jclass c);
/* class_keys.c: a new WeakReference to `o` (HprofSites.weak), NULL on
 * failure; get: a local reference to what a key or weak reference refers
 * to (NULL if cleared), or to `key` itself if it is neither. */
jobject hp_sites_exact_weak(JNIEnv *jni, jobject o);
jobject hp_sites_exact_weak_get(JNIEnv *jni, jobject key);

/* natives.c: learns the JVM's array layout that config() hands the tracker;
 * false if it fits no known layout. */
bool hp_sites_exact_learn_layout(jvmtiEnv *jvmti, JNIEnv *jni);
/* native_gate.c: whether the tracker's natives that use JVM TI (tag, own,
 * derive) work; turned off at VM death and `stop`, which returns once no
 * thread is inside one; a native enters (false: tags are stopped) and
 * leaves. */
void hp_sites_exact_tags_allowed(bool on);
bool hp_sites_exact_native_enter(void);
void hp_sites_exact_native_leave(void);

/* survivors.c: `o` is recorded to be tagged with an ID of `site_bits` if
 * it is alive at a dump (false: not recorded, tag it now); the thread that
 * drops the dead ones after each GC and the GC event that wakes it; a drain
 * tags every recorded object still alive (dumps, after their collection);
 * stop ends the thread (VM death). */
bool hp_sites_exact_survivors_record(JNIEnv *jni, jobject o, uint32_t site_bits);
bool hp_sites_exact_survivors_start(jvmtiEnv *jvmti, JNIEnv *jni);
void JNICALL hp_sites_exact_on_gc_finish(jvmtiEnv *jvmti);
void hp_sites_exact_survivors_drain(jvmtiEnv *jvmti, JNIEnv *jni);
void hp_sites_exact_survivors_stop(void);

/* vm_alloc.c: the VMObjectAlloc callback; the natives it recognises (false
 * if one is missing); starts/stops recording and the event. */
void JNICALL hp_sites_exact_on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                               jobject object, jclass klass, jlong size);
bool hp_sites_exact_find_natives(JNIEnv *jni);
void hp_sites_exact_vm_alloc_record(jvmtiEnv *jvmti, bool on, bool event);
/* vm_alloc.c: while on, the calling thread's own allocations are not counted. */
void hp_sites_exact_vm_alloc_ignore(bool on);
/* vm_alloc.c: whether allocations are counted now; counts `objects`
 * (NULL ones skipped), made by the JVM for a native, at the native's stack
 * (jni_alloc.c). */
bool hp_sites_exact_vm_recording(void);
void hp_sites_exact_vm_count(jvmtiEnv *jvmti, JNIEnv *jni, const jobject *objects, int n_objects);

/* native_windows.c (JDK 22+, not attached): VMObjectAlloc on for the
 * calling thread only inside the natives in which the JVM allocates (false:
 * the event stays on for the whole recording); the natives bound before VM
 * start, wrapped at VM init; a window around other such calls; whether one
 * is open on the calling thread (or a global one anywhere). */
bool hp_sites_exact_windows_wanted(struct hp_setup *s);
void hp_sites_exact_windows_start(jvmtiEnv *jvmti, JNIEnv *jni);
void hp_sites_exact_window_open(JNIEnv *jni);
void hp_sites_exact_window_close(JNIEnv *jni);
bool hp_sites_exact_in_window(void);
/* jni_alloc.c: wraps JNI's allocating functions, those making objects
 * too or only those making strings and arrays (which JDK 21's and earlier
 * VMObjectAlloc does not report); false if the JVM refused the table. */
bool hp_sites_exact_jni_wrap(jvmtiEnv *jvmti, JNIEnv *jni, bool objects);

/* unlearned.c, at a dump: the sites of tracker numbers `numbers` whose
 * class no object taught learn it from the allocating method's loader (a
 * site of a class no longer loaded stays unlearned); then, after the heap
 * walks, instance sites among them get their size, from the live objects
 * per class serial - base (below n_classes) or from an instance made. */
void hp_sites_exact_learn_unlearned(jvmtiEnv *jvmti, JNIEnv *jni, const int32_t *numbers,
                                    uint32_t n);
void hp_sites_exact_size_unlearned(jvmtiEnv *jvmti, JNIEnv *jni, const uint64_t *live_objs,
                                   const uint64_t *live_bytes, uint32_t n_classes);

/* tally.c: per key, this dump's figures. */
struct hp_sites_tally {
    uint64_t objs, bytes;                    /* allocated */
    uint64_t live, live_bytes, live_sampled; /* tagged objects found live */
};
struct hp_sites_tallies {
    struct hp_sites_tally *t;
    uint32_t n; /* keys 1..n */
};
/* Looks up the tracker's fields and methods; false if one is missing. */
bool hp_sites_exact_tally_init(JNIEnv *jni, jclass tracker);
/* An ending thread's counts into its keys (ThreadEnd). */
void hp_sites_exact_fold(jvmtiEnv *jvmti, JNIEnv *jni, const struct hp_thread *t);
/* Folds the states of threads that ended without a ThreadEnd fold, unless
 * a dump or a fold is under way. */
void hp_sites_exact_fold_ended(jvmtiEnv *jvmti, JNIEnv *jni);
/* Folds wait while a dump counts (hold around tally_allocated). */
void hp_sites_exact_folds_lock(void);
void hp_sites_exact_folds_unlock(void);
/* Allocated counts per key: the running threads' slots plus what ended
 * threads and the JVM added. */
void hp_sites_exact_tally_allocated(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_tallies *ts);

/* collect.c: brings the site counters up to date and counts the live
 * objects per site (after a forced collection). */
bool hp_sites_exact_collect(jvmtiEnv *jvmti, JNIEnv *jni, struct hp_sites_live *live);
/* With heap=dump: how the walk finds the site of a tag holding a key. */
extern const struct hp_site_tags hp_sites_exact_tags;

#endif
