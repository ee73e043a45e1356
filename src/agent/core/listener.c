/* Commands are u1 tag, u4 serial, u4 length (both ignored, as in the
 * original), then a body that depends on the tag; everything big-endian,
 * IDs included (8 bytes, the ID size of our header; the original read its
 * 4-byte IDs unconverted). A lone 0xFF tag, the end of the stream or a read
 * error ends the listener; the output goes on. The output buffer is flushed
 * after every command. */
#include "agent/core/listener.h"

#include "agent/core/agent.h"
#include "agent/core/agent_thread.h"
#include "agent/core/dump.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/core/mode.h"
#include "agent/io/writer.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"
#include "format/bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum {
    CMD_GC = 0x01,
    CMD_DUMP_HEAP = 0x02,
    CMD_ALLOC_SITES = 0x03,
    CMD_HEAP_SUMMARY = 0x04,
    CMD_EXIT = 0x05,
    CMD_DUMP_TRACES = 0x06,
    CMD_CPU_SAMPLES = 0x07,
    CMD_CONTROL = 0x08,
    CMD_EOF = 0xFF,
};

/* CONTROL sub-commands, numbered as the JDK 8 agent's code handled them
 * (its documentation listed 6 as set depth; the code used 7). */
enum {
    CTL_TRACKING_ON = 1,
    CTL_TRACKING_OFF = 2,
    CTL_SAMPLING_ON = 3,
    CTL_SAMPLING_OFF = 4,
    CTL_CLEAR_CPU = 5,
    CTL_CLEAR_SITES = 6,
    CTL_DEPTH = 7,
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t ended;
    int fd;
    int wake[2];  /* a byte in wake[1] tells the listener to stop */
    bool running; /* from start until the thread function returns */
    bool exiting; /* the listener is ending the VM */
} ls = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, {-1, -1}, false, false};

static HP_TLS bool on_listener;

/* Reads exactly n bytes. False at the end of the stream, on an error, or
 * when told to stop; a closed peer is therefore never polled again. */
static bool read_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        struct pollfd fds[2] = {{ls.fd, POLLIN, 0}, {ls.wake[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (fds[1].revents) return false;
        ssize_t got = recv(ls.fd, p, n, MSG_DONTWAIT);
        if (got > 0) {
            p += got;
            n -= (size_t)got;
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            return false;
        }
    }
    return true;
}

static bool read_u2(uint16_t *v)
{
    uint8_t b[2];
    if (!read_bytes(b, sizeof b)) return false;
    *v = (uint16_t)(b[0] << 8 | b[1]);
    return true;
}

static bool read_u4(uint32_t *v)
{
    uint8_t b[4];
    if (!read_bytes(b, sizeof b)) return false;
    *v = hp_be32(b);
    return true;
}

static bool read_id(uint64_t *v)
{
    uint32_t hi, lo;
    if (!read_u4(&hi) || !read_u4(&lo)) return false;
    *v = (uint64_t)hi << 32 | lo;
    return true;
}

/* A u4 holding the bits of an IEEE single (the cutoff ratios). */
static bool read_float(double *v)
{
    uint32_t bits;
    float f;
    if (!read_u4(&bits)) return false;
    memcpy(&f, &bits, sizeof f);
    *v = f;
    return true;
}

/* The serial of the thread whose Thread object has this ID (its tag, as
 * START THREAD gives it); 0 if there is none. */
static uint32_t thread_serial_of(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t id)
{
    jlong tag = (jlong)id;
    jint n = 0;
    jobject *objs = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetObjectsWithTags(jvmti, 1, &tag, &n, &objs, NULL),
                     "GetObjectsWithTags"))
        return 0;
    uint32_t serial = 0;
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (thread_class == NULL) (*jni)->ExceptionClear(jni);
    for (jint i = 0; i < n; i++) {
        if (serial == 0 && thread_class && (*jni)->IsInstanceOf(jni, objs[i], thread_class)) {
            const struct hp_thread *t = hp_thread_get(jvmti, objs[i]);
            if (t) serial = t->serial;
        }
        (*jni)->DeleteLocalRef(jni, objs[i]);
    }
    if (thread_class) (*jni)->DeleteLocalRef(jni, thread_class);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)objs);
    return serial;
}

/* EXIT, and the original's answer to an unknown command: exit status 0.
 * System.exit rather than C exit(), so that the VM shuts down in order and
 * the exit dump (doe=y) still goes out; VM death then runs on this thread. */
_Noreturn static void exit_vm(JNIEnv *jni)
{
    pthread_mutex_lock(&ls.lock);
    ls.exiting = true;
    pthread_cond_broadcast(&ls.ended);
    pthread_mutex_unlock(&ls.lock);
    jclass sys = (*jni)->FindClass(jni, "java/lang/System");
    jmethodID m = sys ? (*jni)->GetStaticMethodID(jni, sys, "exit", "(I)V") : NULL;
    if (m) (*jni)->CallStaticVoidMethod(jni, sys, m, 0);
    /* Only reached if System.exit threw (a security manager refusing it). */
    (*jni)->ExceptionClear(jni);
    hp_error("System.exit failed; exiting the process directly");
    hp_out_flush();
    exit(0);
}

static bool control(jvmtiEnv *jvmti, JNIEnv *jni)
{
    uint16_t sub;
    if (!read_u2(&sub)) return false;
    struct hp_request r = {.on = sub == CTL_TRACKING_ON || sub == CTL_SAMPLING_ON};
    uint64_t id = 0;
    uint16_t depth;
    switch (sub) {
    case CTL_TRACKING_ON:
    case CTL_TRACKING_OFF:
        r.kind = HP_REQ_TRACKING;
        break;
    case CTL_SAMPLING_ON:
    case CTL_SAMPLING_OFF:
        if (!read_id(&id)) return false;
        r.kind = HP_REQ_SAMPLING;
        if (id != 0 && (r.thread_serial = thread_serial_of(jvmti, jni, id)) == 0) {
            hp_error("net CONTROL %u: no thread has object ID 0x%llx", sub, (unsigned long long)id);
            return true;
        }
        break;
    case CTL_CLEAR_CPU:
        r.kind = HP_REQ_CLEAR_CPU;
        break;
    case CTL_CLEAR_SITES:
        r.kind = HP_REQ_CLEAR_SITES;
        break;
    case CTL_DEPTH:
        if (!read_u2(&depth)) return false;
        atomic_store(&hp.trace_depth, depth);
        return true;
    default:
        hp_error("net CONTROL: unknown sub-command %u ignored", sub);
        return true;
    }
    hp_dump_request(jvmti, jni, &r);
    return true;
}

/* Runs one command; false when the stream ended in the middle of it. */
static bool command(jvmtiEnv *jvmti, JNIEnv *jni, uint8_t tag)
{
    struct hp_request r = {0};
    uint16_t flags;
    switch (tag) {
    case CMD_GC:
        hp_gc_for_dump(jvmti);
        return true;
    case CMD_DUMP_HEAP:
        hp_dump_heap(jvmti, jni);
        return true;
    case CMD_ALLOC_SITES:
        if (!read_u2(&flags) || !read_float(&r.cutoff)) return false;
        r.kind = HP_REQ_SITES;
        r.flags = flags;
        hp_dump_request(jvmti, jni, &r);
        return true;
    case CMD_HEAP_SUMMARY:
        r.kind = HP_REQ_HEAP_SUMMARY;
        hp_dump_request(jvmti, jni, &r);
        return true;
    case CMD_EXIT:
        hp_verbose("HPROF: received exit event, exiting ...\n");
        exit_vm(jni);
    case CMD_DUMP_TRACES:
        hp_out_lock();
        hp_trace_write_unwritten();
        hp_out_unlock();
        return true;
    case CMD_CPU_SAMPLES:
        if (!read_u2(&flags) || !read_float(&r.cutoff)) return false;
        r.kind = HP_REQ_CPU_SAMPLES;
        hp_dump_request(jvmti, jni, &r);
        return true;
    case CMD_CONTROL:
        return control(jvmti, jni);
    default:
        hp_error("failed to recognize cmd %d, exiting..", tag);
        exit_vm(jni);
    }
}

static void JNICALL listen_loop(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)arg;
    on_listener = true;
    for (;;) {
        uint8_t tag;
        uint32_t serial, length;
        if (!read_bytes(&tag, 1) || tag == CMD_EOF) break;
        if (!read_u4(&serial) || !read_u4(&length) || !command(jvmti, jni, tag)) break;
        hp_out_flush();
    }
    pthread_mutex_lock(&ls.lock);
    ls.running = false;
    pthread_cond_broadcast(&ls.ended);
    pthread_mutex_unlock(&ls.lock);
}

bool hp_listener_start(jvmtiEnv *jvmti, JNIEnv *jni, int fd)
{
    if (pipe2(ls.wake, O_CLOEXEC) != 0) {
        hp_error("net=: cannot create the listener's pipe: %s; commands are not read",
                 strerror(errno));
        return false;
    }
    ls.fd = fd;
    pthread_mutex_lock(&ls.lock);
    ls.running = true;
    pthread_mutex_unlock(&ls.lock);
    if (hp_agent_thread_start(jvmti, jni, "HPROF listener thread", listen_loop, NULL)) return true;
    pthread_mutex_lock(&ls.lock);
    ls.running = false;
    pthread_mutex_unlock(&ls.lock);
    return false;
}

void hp_listener_stop(void)
{
    pthread_mutex_lock(&ls.lock);
    const char stop = 1;
    bool woken = ls.running && write(ls.wake[1], &stop, 1) == 1;
    if (ls.running && !woken) hp_error("net=: cannot wake the listener: %s", strerror(errno));
    while (woken && ls.running && !ls.exiting && !on_listener)
        pthread_cond_wait(&ls.ended, &ls.lock);
    pthread_mutex_unlock(&ls.lock);
}
