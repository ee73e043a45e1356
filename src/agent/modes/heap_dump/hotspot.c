#include "agent/modes/heap_dump/hotspot.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/modes/heap_dump/splice.h"
#include "agent/modes/heap_dump/stale.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    jobject bean; /* global reference to the HotSpotDiagnosticMXBean */
    jmethodID dump_heap;
    bool unusable; /* reported once; later dumps walk the heap */
    bool spliced;  /* the output holds a dump of the JVM's */
    unsigned files;
} hs;

/* The pending exception as its toString(), cleared. */
static void take_exception(JNIEnv *jni, char *out, size_t n)
{
    jthrowable t = (*jni)->ExceptionOccurred(jni);
    (*jni)->ExceptionClear(jni);
    snprintf(out, n, "an exception");
    if (t == NULL) return;
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    jmethodID to_string =
        object ? (*jni)->GetMethodID(jni, object, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = to_string ? (*jni)->CallObjectMethod(jni, t, to_string) : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    const char *chars = s ? (*jni)->GetStringUTFChars(jni, s, NULL) : NULL;
    if (chars) {
        snprintf(out, n, "%s", chars);
        (*jni)->ReleaseStringUTFChars(jni, s, chars);
    }
    if (s) (*jni)->DeleteLocalRef(jni, s);
    if (object) (*jni)->DeleteLocalRef(jni, object);
    (*jni)->DeleteLocalRef(jni, t);
}

/* ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class), and
 * its dumpHeap. JDK 17 to 25 implement it with a private native dumpHeap0
 * (JNI applies no access checks): calling that directly leaves out the Java
 * wrapper's suffix check and the lambda it allocates, so the dump holds the
 * same objects as the JVM's own but for our file name. */
static bool find_bean(JNIEnv *jni, char *why, size_t n)
{
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass iface =
        factory ? (*jni)->FindClass(jni, "com/sun/management/HotSpotDiagnosticMXBean") : NULL;
    jmethodID get = iface ? (*jni)->GetStaticMethodID(
                                jni, factory, "getPlatformMXBean",
                                "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;")
                          : NULL;
    jobject bean = get ? (*jni)->CallStaticObjectMethod(jni, factory, get, iface) : NULL;
    if ((*jni)->ExceptionCheck(jni)) bean = NULL; /* taken below */
    jclass impl = bean ? (*jni)->GetObjectClass(jni, bean) : NULL;
    jmethodID dump =
        impl ? (*jni)->GetMethodID(jni, impl, "dumpHeap0", "(Ljava/lang/String;Z)V") : NULL;
    if (impl && dump == NULL) {
        (*jni)->ExceptionClear(jni); /* NoSuchMethodError: another implementation */
        dump = (*jni)->GetMethodID(jni, iface, "dumpHeap", "(Ljava/lang/String;Z)V");
    }
    bool ok = false;
    if ((*jni)->ExceptionCheck(jni))
        take_exception(jni, why, n);
    else if (dump == NULL)
        snprintf(why, n, "no HotSpotDiagnosticMXBean");
    else if ((hs.bean = (*jni)->NewGlobalRef(jni, bean)) == NULL)
        snprintf(why, n, "out of memory");
    else
        ok = true;
    hs.dump_heap = dump;
    if (impl) (*jni)->DeleteLocalRef(jni, impl);
    if (bean) (*jni)->DeleteLocalRef(jni, bean);
    if (iface) (*jni)->DeleteLocalRef(jni, iface);
    if (factory) (*jni)->DeleteLocalRef(jni, factory);
    return ok;
}

/* Next to a file output (same file system: no second disk needs the space)
 * when that directory is writable, else in $TMPDIR. HotSpot wants the
 * .hprof suffix and a file that does not exist. The first dump of a run
 * also removes what killed runs left in that directory. */
static void temp_path(char *out, size_t n)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0') dir = "/tmp";
    int len = (int)strlen(dir);
    if (!hp.opt.net_host && hp.output_name) {
        const char *slash = strrchr(hp.output_name, '/');
        const char *odir = slash ? hp.output_name : ".";
        int olen = slash ? (slash == hp.output_name ? 1 : (int)(slash - hp.output_name)) : 1;
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%.*s", olen, odir);
        if (access(probe, W_OK | X_OK) == 0) {
            dir = odir;
            len = olen;
        }
    }
    if (hs.files == 0) {
        char swept[PATH_MAX];
        snprintf(swept, sizeof swept, "%.*s", len, dir);
        hd_sweep_stale(swept);
    }
    snprintf(out, n, "%.*s/" HD_TEMP_PREFIX "%ld-%u.hprof", len, dir, (long)getpid(), ++hs.files);
}

/* Far enough behind the copy that most arrays' later elements are dumped by
 * the time their part of the file is dropped (splice.c keeps the others). */
#define PUNCH_LAG ((uint64_t)64 << 20)

struct job {
    struct hd_splice sp;
    const char *path;
    enum hd_splice_result res;
    uint64_t cpu_ns; /* the splicing thread's CPU time */
};

/* Waits for HotSpot to create the file, then copies it. Not a Java thread:
 * it holds the output lock while HotSpot writes, and nothing HotSpot does in
 * a dump waits for that lock (see README). */
static void *splicer(void *arg)
{
    struct job *j = arg;
    pthread_setname_np(pthread_self(), "HPROF dump copy");
    for (;;) {
        int state = atomic_load(&j->sp.jvm);
        /* Writable, to punch out what is copied (see splice.h). */
        j->sp.fd = open(j->path, O_RDWR | O_CLOEXEC);
        if (j->sp.fd < 0 && errno != ENOENT) {
            j->sp.punch_lag = 0;
            j->sp.fd = open(j->path, O_RDONLY | O_CLOEXEC);
        }
        if (j->sp.fd >= 0) break;
        if (state != HD_JVM_WRITING) {
            snprintf(j->sp.error, sizeof j->sp.error, "the JVM wrote no dump file");
            j->res = HD_SPLICE_NOTHING;
            return NULL;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    j->res = hd_splice_run(&j->sp);
    close(j->sp.fd);
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        j->cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
    return NULL;
}

bool hd_hotspot_dump(JNIEnv *jni)
{
    char why[256] = "";
    if (hs.unusable) return false;
    if (hs.bean == NULL && !find_bean(jni, why, sizeof why)) {
        hs.unusable = true;
        /* A note, not an HPROF ERROR: the dump is complete either way (and
         * errorexit=y would end a run that works). */
        hp_note("heap dump: the JVM's own heap dumper is not available (%s); walking the heap "
                "with JVM TI instead (slower)",
                why);
        return false;
    }
    uint64_t start = hp_mono_ns();
    char path[PATH_MAX];
    temp_path(path, sizeof path);
    (void)unlink(path);
    jstring jpath = (*jni)->NewStringUTF(jni, path);
    if (jpath == NULL) {
        take_exception(jni, why, sizeof why);
        hp_error("heap dump: %s; walking the heap with JVM TI instead", why);
        return false;
    }
    bool overlap = hp.opt.net_host == NULL;
    struct job job = {.sp = {.fd = -1,
                             .path = path,
                             .inplace = overlap && !hs.spliced,
                             .overlap = overlap,
                             .punch_lag = overlap ? PUNCH_LAG : 0},
                      .path = path};
    atomic_init(&job.sp.jvm, HD_JVM_WRITING);
    pthread_t thread;
    if (pthread_create(&thread, NULL, splicer, &job) != 0) {
        (*jni)->DeleteLocalRef(jni, jpath);
        hp_error("heap dump: cannot start a thread; walking the heap with JVM TI instead");
        return false;
    }
    /* No agent lock is held here: the call runs Java code, which may load
     * classes and so post events that write records. */
    bool live = !(hp_gc_none_at_death() && atomic_load(&hp.vm_dying));
    (*jni)->CallVoidMethod(jni, hs.bean, hs.dump_heap, jpath, live ? JNI_TRUE : JNI_FALSE);
    bool failed = (*jni)->ExceptionCheck(jni);
    if (failed) take_exception(jni, why, sizeof why);
    atomic_store(&job.sp.jvm, failed ? HD_JVM_FAILED : HD_JVM_DONE);
    uint64_t jvm_done = hp_mono_ns();
    pthread_join(thread, NULL);
    hs.spliced = true; /* even a failed copy may have written names */
    (void)unlink(path);
    (*jni)->DeleteLocalRef(jni, jpath);
    const char *what = failed ? why : job.sp.error;
    if (job.res == HD_SPLICE_NOTHING) {
        hp_error("heap dump through the JVM's own dumper failed (%s); walking the heap with "
                 "JVM TI instead",
                 what);
        return false;
    }
    if (job.res == HD_SPLICE_BROKEN)
        hp_error("heap dump through the JVM's own dumper failed (%s); this heap dump is "
                 "incomplete",
                 what);
    else if (hp.opt.logflags)
        fprintf(stderr,
                "HPROF LOG: heap dump (the JVM's dumper, %s): %" PRIu64 " objects, %" PRIu64
                " bytes read (%" PRIu64 " dropped early), %" PRIu64 " written, %" PRIu64
                " dangling references nulled; agent memory %zu KiB; ms: JVM %" PRIu64
                ", copy after it %" PRIu64 ", copying thread CPU %" PRIu64 "\n",
                job.sp.moved     ? "its file became the output"
                : job.sp.adopted ? "its file appended in the kernel"
                : job.sp.refusal ? job.sp.refusal
                                 : "copied",
                job.sp.objects, job.sp.in_bytes, job.sp.punched, job.sp.out_bytes, job.sp.nulled,
                job.sp.memory >> 10, (jvm_done - start) / 1000000,
                (hp_mono_ns() - jvm_done) / 1000000, job.cpu_ns / 1000000);
    return true;
}
