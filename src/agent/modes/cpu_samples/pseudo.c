#include "agent/modes/cpu_samples/pseudo.h"

#include "agent/tables/class.h"
#include "agent/tables/frame.h"
#include "agent/tables/method.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <string.h>

static const struct {
    const char *class_name, *method;
} names[HP_PSEUDO_COUNT] = {
    [HP_PSEUDO_GC_WORKERS] = {"<GC>", "workers"},
    [HP_PSEUDO_GC_CONCURRENT_MARK] = {"<GC>", "concurrentMark"},
    [HP_PSEUDO_GC_REFINEMENT] = {"<GC>", "refinement"},
    [HP_PSEUDO_GC_SERVICE] = {"<GC>", "service"},
    [HP_PSEUDO_JIT_C2] = {"<JIT>", "c2Compiler"},
    [HP_PSEUDO_JIT_C1] = {"<JIT>", "c1Compiler"},
    [HP_PSEUDO_JIT_SWEEPER] = {"<JIT>", "codeSweeper"},
    [HP_PSEUDO_VM_OPERATIONS] = {"<VM>", "operations"},
    [HP_PSEUDO_VM_PERIODIC_TASK] = {"<VM>", "periodicTask"},
    [HP_PSEUDO_VM_SERVICE_THREADS] = {"<VM>", "serviceThreads"},
    [HP_PSEUDO_VM_STARTUP] = {"<VM>", "startup"},
    [HP_PSEUDO_VM_OTHER_THREADS] = {"<VM>", "otherThreads"},
    [HP_PSEUDO_AGENT_THREADS] = {"<hprof>", "agentThreads"},
    [HP_PSEUDO_UNWALKABLE_NO_JAVA_FRAME] = {"<unwalkable>", "noJavaFrame"},
    [HP_PSEUDO_UNWALKABLE_IN_GC] = {"<unwalkable>", "inGC"},
    [HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA] = {"<unwalkable>", "notInJava"},
    [HP_PSEUDO_UNWALKABLE_IN_JAVA] = {"<unwalkable>", "inJava"},
    [HP_PSEUDO_UNWALKABLE_DEOPTIMIZING] = {"<unwalkable>", "deoptimizing"},
    [HP_PSEUDO_UNWALKABLE_AT_SAFEPOINT] = {"<unwalkable>", "atSafepoint"},
    [HP_PSEUDO_UNWALKABLE_THREAD_EXIT] = {"<unwalkable>", "threadExit"},
    [HP_PSEUDO_UNWALKABLE_OTHER] = {"<unwalkable>", "other"},
};

/* OS thread name prefixes of HotSpot's own threads (JDK 8 to 25), first
 * match wins. Java threads never get here: they are sampled by timers. */
static const struct {
    const char *prefix;
    enum hp_pseudo kind;
} thread_kinds[] = {
    {"GC Thread#", HP_PSEUDO_GC_WORKERS},
    {"GC task thread", HP_PSEUDO_GC_WORKERS},
    {"Gang worker", HP_PSEUDO_GC_WORKERS},
    {"ZWorker", HP_PSEUDO_GC_WORKERS},
    {"Shenandoah", HP_PSEUDO_GC_WORKERS},
    {"G1 Main Marker", HP_PSEUDO_GC_CONCURRENT_MARK},
    {"G1 Conc#", HP_PSEUDO_GC_CONCURRENT_MARK},
    {"G1 Main Concurr", HP_PSEUDO_GC_CONCURRENT_MARK},
    {"G1 Refine#", HP_PSEUDO_GC_REFINEMENT},
    {"G1 Concurrent R", HP_PSEUDO_GC_REFINEMENT},
    {"G1 ", HP_PSEUDO_GC_SERVICE},
    {"Z", HP_PSEUDO_GC_SERVICE},
    {"C2 CompilerThre", HP_PSEUDO_JIT_C2},
    {"C1 CompilerThre", HP_PSEUDO_JIT_C1},
    {"JVMCI", HP_PSEUDO_JIT_C2},
    {"Sweeper thread", HP_PSEUDO_JIT_SWEEPER},
    {"VM Thread", HP_PSEUDO_VM_OPERATIONS},
    {"VM Periodic Tas", HP_PSEUDO_VM_PERIODIC_TASK},
    {"Service Thread", HP_PSEUDO_VM_SERVICE_THREADS},
    {"Monitor Deflati", HP_PSEUDO_VM_SERVICE_THREADS},
    {"Notification Th", HP_PSEUDO_VM_SERVICE_THREADS},
    {"HPROF ", HP_PSEUDO_AGENT_THREADS},
};

enum hp_pseudo hp_pseudo_of_thread_name(const char *comm)
{
    for (size_t i = 0; i < sizeof thread_kinds / sizeof thread_kinds[0]; i++) {
        const char *p = thread_kinds[i].prefix;
        /* "Z" alone would take any name: ZGC's threads are Z and a capital. */
        if (strncmp(comm, p, strlen(p)) == 0 &&
            (p[1] != '\0' || (comm[1] >= 'A' && comm[1] <= 'Z')))
            return thread_kinds[i].kind;
    }
    return HP_PSEUDO_VM_OTHER_THREADS;
}

/* AsyncGetCallTrace's results (HotSpot's forte.cpp "ticks_*"). */
enum hp_pseudo hp_pseudo_of_walk_error(int num_frames)
{
    switch (num_frames) {
    case 0:  /* no Java frame */
    case -1: /* no class load */
        return HP_PSEUDO_UNWALKABLE_NO_JAVA_FRAME;
    case -2: /* GC active */
        return HP_PSEUDO_UNWALKABLE_IN_GC;
    case -3: /* unknown, not Java */
    case -4: /* not walkable, not Java */
        return HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA;
    case -5: /* unknown, Java */
    case -6: /* not walkable, Java */
        return HP_PSEUDO_UNWALKABLE_IN_JAVA;
    case -8: /* thread exit */
        return HP_PSEUDO_UNWALKABLE_THREAD_EXIT;
    case -9: /* deoptimization */
        return HP_PSEUDO_UNWALKABLE_DEOPTIMIZING;
    case -10: /* safepoint */
        return HP_PSEUDO_UNWALKABLE_AT_SAFEPOINT;
    default: /* -7 unknown thread state, and codes of later JDKs */
        return HP_PSEUDO_UNWALKABLE_OTHER;
    }
}

/* The addresses of these bytes are the pseudo-methods' keys in the method
 * table: the agent's own, so never a jmethodID. */
static const char keys[HP_PSEUDO_COUNT];
static uint32_t frame_ids[HP_PSEUDO_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void hp_pseudo_forget(void)
{
    pthread_mutex_lock(&lock);
    memset(frame_ids, 0, sizeof frame_ids);
    pthread_mutex_unlock(&lock);
}

/* One class per distinct class name, made with the first of its methods. */
static uint32_t class_serial_of(enum hp_pseudo kind)
{
    for (int k = 0; k < HP_PSEUDO_COUNT; k++) {
        if (k == (int)kind || frame_ids[k] == 0 ||
            strcmp(names[k].class_name, names[kind].class_name))
            continue;
        return hp_frame_get(frame_ids[k])->method->class_serial;
    }
    return hp_class_pseudo(names[kind].class_name);
}

static uint32_t frame_of(jvmtiEnv *jvmti, JNIEnv *jni, enum hp_pseudo kind)
{
    pthread_mutex_lock(&lock);
    if (frame_ids[kind] == 0) {
        struct hp_method m = {.class_serial = class_serial_of(kind),
                              .name = (char *)names[kind].method,
                              .sig = (char *)"()V",
                              .n_lines = -1};
        jmethodID key = (jmethodID)(uintptr_t)&keys[kind];
        hp_method_define(key, &m);
        frame_ids[kind] = hp_frame_intern(jvmti, jni, key, -1);
    }
    uint32_t id = frame_ids[kind];
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t hp_pseudo_trace(jvmtiEnv *jvmti, JNIEnv *jni, enum hp_pseudo kind, uint32_t thread_serial)
{
    if (kind >= HP_PSEUDO_COUNT) return 0;
    uint32_t frame = frame_of(jvmti, jni, kind);
    return frame ? hp_trace_intern(thread_serial, &frame, 1) : 0;
}
