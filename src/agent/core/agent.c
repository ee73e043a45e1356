/* Agent_OnLoad and the JVM TI lifecycle: options, output, capabilities,
 * events, and the hand-off to the active modes. */
#include "agent/core/agent.h"

#include "agent/core/agent_thread.h"
#include "agent/core/dump.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/core/in_agent.h"
#include "agent/core/listener.h"
#include "agent/core/mode.h"
#include "agent/core/pause.h"
#include "agent/io/naming.h"
#include "agent/io/sink.h"
#include "agent/io/writer.h"
#include "agent/output/encoder.h"
#include "agent/tables/class.h"
#include "agent/tables/frame.h"
#include "agent/tables/method.h"
#include "agent/tables/thread.h"
#include "agent/tables/trace.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hp_agent hp;

static pthread_mutex_t lifecycle = PTHREAD_MUTEX_INITIALIZER; /* ending a recording */

static atomic_bool loaded;
static int net_fd = -1; /* the net= socket, for the listener */

JNIEnv *hp_jni(void)
{
    JNIEnv *jni = NULL;
    if (hp.vm == NULL || (*hp.vm)->GetEnv(hp.vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
        return NULL;
    return jni;
}

/* `m` names the loop variable, so it cannot be parenthesised. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define FOR_MODES(m) for (const struct hp_mode *const *m = hp_active_modes(); *m; m++)
/* NOLINTEND(bugprone-macro-parentheses) */

void hp_set_events(jvmtiEventMode mode, const jvmtiEvent *events, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hp_jvmti_ok(hp.jvmti,
                    (*hp.jvmti)->SetEventNotificationMode(hp.jvmti, mode, events[i], NULL),
                    "SetEventNotificationMode");
}

static const jvmtiEvent live_events[] = {
    JVMTI_EVENT_THREAD_START,
    JVMTI_EVENT_THREAD_END,
    JVMTI_EVENT_DATA_DUMP_REQUEST,
};

/* ClassPrepare costs every class load a callback: only when someone listens. */
static bool class_prepare_wanted(void)
{
    bool wanted = hp_output_binary();
    FOR_MODES(m) wanted |= (*m)->class_prepare != NULL;
    return wanted;
}

static void thread_seen(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, bool current)
{
    struct hp_thread *before = hp_thread_get(jvmti, thread);
    struct hp_thread *t =
        before ? before
               : hp_thread_seen(jvmti, jni, thread, current, hp_is_agent_thread(jni, thread));
    if (t == NULL || before != NULL) return;
    FOR_MODES(m)
    if ((*m)->thread_start) (*m)->thread_start(jvmti, jni, thread, t, current);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    if (atomic_load(&hp.live)) thread_seen(jvmti, jni, thread, true);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    if (!atomic_load(&hp.live)) return;
    struct hp_thread *t = hp_thread_get(jvmti, thread);
    if (t == NULL) return;
    FOR_MODES(m)
    if ((*m)->thread_end) (*m)->thread_end(jvmti, jni, thread, t);
    hp_thread_ended(jvmti, thread);
}

static void class_prepared(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    if (!atomic_load(&hp.live)) return;
    if (hp_output_binary()) hp_class_serial(jvmti, klass);
    FOR_MODES(m)
    if ((*m)->class_prepare) (*m)->class_prepare(jvmti, jni, thread, klass);
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
    hp_in_agent_enter();
    class_prepared(jvmti, jni, thread, klass);
    hp_in_agent_leave(jvmti, jni);
}

static void JNICALL on_data_dump_request(jvmtiEnv *jvmti)
{
    JNIEnv *jni = hp_jni();
    if (jni != NULL && atomic_load(&hp.live)) hp_dump_all(jvmti, jni);
}

/* Threads that started before VM_INIT never get a ThreadStart event (the
 * original missed them); list them here. Events are already on, and the
 * thread table drops the duplicates of a thread starting meanwhile. */
static void record_running_threads(jvmtiEnv *jvmti, JNIEnv *jni, jthread current)
{
    jint n = 0;
    jthread *threads = NULL;
    if (!hp_jvmti_ok(jvmti, (*jvmti)->GetAllThreads(jvmti, &n, &threads), "GetAllThreads")) return;
    for (jint i = 0; i < n; i++) {
        thread_seen(jvmti, jni, threads[i], (*jni)->IsSameObject(jni, threads[i], current));
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
}

/* The live phase of a recording begins: at VM_INIT, or at once when attached. */
void hp_recording_live(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    atomic_store(&hp.live, true);
    hp_gc_probe();
    hp_set_events(JVMTI_ENABLE, live_events, sizeof live_events / sizeof live_events[0]);
    const jvmtiEvent prepare = JVMTI_EVENT_CLASS_PREPARE;
    if (class_prepare_wanted()) hp_set_events(JVMTI_ENABLE, &prepare, 1);
    record_running_threads(jvmti, jni, thread);
    if (hp_output_binary()) hp_class_resync(jvmti, jni);
    FOR_MODES(m)
    if ((*m)->vm_init) (*m)->vm_init(jvmti, jni);
    hp_out_flush();
    if (net_fd >= 0) hp_listener_start(jvmti, jni, net_fd);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    hp_recording_live(jvmti, jni, thread);
}

/* Ends the recording: no event, sampling or agent work after it, then the
 * last dump (when asked for) and the output closed. VM death and `stop`
 * race: whichever comes first ends it, the other finds nothing to do. */
bool hp_recording_end(jvmtiEnv *jvmti, JNIEnv *jni, bool final_dump)
{
    pthread_mutex_lock(&lifecycle);
    bool ending = atomic_exchange(&hp.live, false);
    if (ending) {
        /* Late events and dump requests see !live and return at once;
         * nothing waits for them, so exit cannot deadlock on a busy thread. */
        hp_set_events(JVMTI_DISABLE, live_events, sizeof live_events / sizeof live_events[0]);
        const jvmtiEvent prepare = JVMTI_EVENT_CLASS_PREPARE;
        if (class_prepare_wanted()) hp_set_events(JVMTI_DISABLE, &prepare, 1);
        /* Before the modes stop: a command running now still finds them. */
        if (net_fd >= 0) hp_listener_stop();
        net_fd = -1;
        FOR_MODES(m)
        if ((*m)->vm_death) (*m)->vm_death(jvmti, jni);
        if (atomic_load(&hp.vm_dying)) hp_gc_vm_death();
        if (final_dump) hp_dump_all(jvmti, jni);
        hp_out_close();
    }
    pthread_mutex_unlock(&lifecycle);
    return ending;
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    atomic_store(&hp.vm_dying, true);
    hp_recording_end(jvmti, jni, hp.opt.doe);
}

static bool open_output(void)
{
    const struct hp_options *o = &hp.opt;
    if (o->net_host) {
        size_t n = strlen(o->net_host) + 16;
        hp.output_name = malloc(n);
        if (hp.output_name) snprintf(hp.output_name, n, "%s:%d", o->net_host, o->net_port);
        int fd = hp_sink_connect(o->net_host, o->net_port);
        if (fd < 0) return false;
        hp_out_open(fd, true, hp.output_name ? hp.output_name : o->net_host, NULL);
        net_fd = fd;
        return true;
    }
    const char *name = o->file ? o->file : hp_default_filename(o->format == HP_FORMAT_BINARY);
    int fd = hp_sink_open_file(name, o->force, o->format == HP_FORMAT_BINARY, &hp.output_name);
    if (fd < 0) {
        hp.output_name = strdup(name);
        return false;
    }
    hp_out_open(fd, false, hp.output_name,
                o->format == HP_FORMAT_BINARY ? hp_binary_whole_prefix : hp_ascii_whole_prefix);
    return true;
}

static void want_base_capabilities(jvmtiCapabilities *want, const jvmtiCapabilities *can)
{
    want->can_tag_objects = 1;
    want->can_get_source_file_name = can->can_get_source_file_name;
    want->can_get_line_numbers = can->can_get_line_numbers;
}

static char *joined_options(const char *cmdline)
{
    const char *env = getenv("_JAVA_HPROF_OPTIONS");
    size_t n = strlen(cmdline) + (env ? strlen(env) + 1 : 0) + 1;
    char *all = malloc(n);
    if (all) snprintf(all, n, "%s%s%s", cmdline, env && *cmdline ? "," : "", env ? env : "");
    return all;
}

/* Refuses to start: at load the JVM exits, as the original's did; an attach
 * only reports (the target must go on as it was). */
static bool refuse(bool attach, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(bool attach, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!attach) hp_fatal(HP_AGENT_EXIT_USAGE, "%s", msg);
    hp_warn("%s", msg);
    return false;
}

static bool parse_options(const char *cmdline, bool attach)
{
    char err[512];
    hp.options_text = joined_options(cmdline);
    if (hp.options_text == NULL || hp_options_parse(hp.options_text, &hp.opt, err, sizeof err))
        return refuse(attach, "hprof option error: %s (%s)",
                      hp.options_text ? err : "out of memory",
                      hp.options_text ? hp.options_text : "");
    if (hp.opt.help) /* "help" that came from _JAVA_HPROF_OPTIONS alone */
        return refuse(attach, "hprof option error: Unknown option: help (%s)", hp.options_text);
    return true;
}

/* After the error message: the JVM exits at load; an attach returns. */
static bool give_up(bool attach)
{
    if (!attach) exit(HP_AGENT_EXIT_USAGE);
    return false;
}

/* Capabilities and callbacks: the core's and every active mode's. */
static bool set_up_events(bool attach)
{
    jvmtiCapabilities want = {0};
    jvmtiEventCallbacks events = {0};
    struct hp_setup setup = {&want, {0}, &events};
    (*hp.jvmti)->GetPotentialCapabilities(hp.jvmti, &setup.potential);
    want_base_capabilities(&want, &setup.potential);
    FOR_MODES(m)
    if ((*m)->on_load && !(*m)->on_load(&setup)) return give_up(attach);
    if ((*hp.jvmti)->AddCapabilities(hp.jvmti, &want) != JVMTI_ERROR_NONE)
        return refuse(attach, "Unable to get necessary JVMTI capabilities.");
    events.VMInit = on_vm_init;
    events.VMDeath = on_vm_death;
    events.ThreadStart = on_thread_start;
    events.ThreadEnd = on_thread_end;
    events.ClassPrepare = on_class_prepare;
    events.DataDumpRequest = on_data_dump_request;
    if (!hp_jvmti_ok(hp.jvmti, (*hp.jvmti)->SetEventCallbacks(hp.jvmti, &events, sizeof events),
                     "SetEventCallbacks"))
        return give_up(attach);
    return true;
}

bool hp_recording_open(JavaVM *vm, const char *cmdline, bool attach)
{
    if (!parse_options(cmdline, attach)) return false;
    hp_set_verbose(hp.opt.verbose);
    atomic_store(&hp.trace_depth, hp.opt.depth);
    /* An attached agent keeps the target alive while it starts. */
    if (!attach) hp_set_error_policy(hp.opt.errorexit, hp.opt.coredump || hp.opt.debug);
    if (hp.opt.pause && !attach) hp_pause(10000, 600000);
    if (hp.opt.msa) hp_note("msa=y has no effect on this platform");

    hp.vm = vm;
    hp.attached = attach;
    if ((*vm)->GetEnv(vm, (void **)&hp.jvmti, JVMTI_VERSION_1_2) != JNI_OK)
        return refuse(attach, "Unable to access JVMTI Version 1.2 in this JVM");
    hp_modes_select(&hp.opt);
    if (!set_up_events(attach)) return false;
    if (!open_output()) {
        if (hp.opt.net_host)
            return refuse(attach, "can't connect to %s", hp.output_name ? hp.output_name : "");
        return refuse(attach, "can't create profile file: %s",
                      hp.output_name ? hp.output_name : "");
    }
    hp.start_ms = hp_wall_ms();
    hp.start_ns = hp_mono_ns();
    hp_class_table_init();
    hp_method_table_init();
    hp_frame_table_init();
    hp_trace_table_init();
    hp_encoder_select(hp.opt.format);
    hp_encoder()->header();
    hp_out_flush();

    /* Attached, the VM is past VM_INIT: the caller goes live at once. */
    const jvmtiEvent start_events[] = {JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_VM_INIT};
    hp_set_events(JVMTI_ENABLE, start_events, attach ? 1 : 2);
    return true;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    if (atomic_exchange(&loaded, true))
        hp_fatal(HP_AGENT_EXIT_USAGE,
                 "Cannot load this JVM TI agent twice, check your java command "
                 "line for duplicate hprof options.");
    const char *cmdline = options ? options : "";
    if (strcmp(cmdline, "help") == 0) {
        fputs(hp_usage_text, stdout);
        fflush(stdout);
        exit(0);
    }
    hp_recording_open(vm, cmdline, false);
    return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    /* Nothing is freed: threads of the dying VM may still be inside our
     * callbacks, and the process is about to end anyway. */
    (void)vm;
}
