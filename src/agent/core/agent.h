/* The agent's global state: one instance, `hp`, set up in Agent_OnLoad. */
#ifndef HPROF_AGENT_H
#define HPROF_AGENT_H

#include "agent/core/options.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Thread-local storage of the initial-exec model: a plain TLS load, never a
 * __tls_get_addr call (per object on the allocation hooks' paths), and never
 * the dynamic TLS allocator a first access through it may reach (signal
 * handlers read some). */
#define HP_TLS _Thread_local __attribute__((tls_model("initial-exec")))

struct hp_agent {
    JavaVM *vm;
    jvmtiEnv *jvmti;
    struct hp_options opt;
    char *options_text;   /* as given, for error messages */
    char *output_name;    /* file name, or host:port */
    atomic_bool live;     /* recording: VM_INIT seen (or attached), not yet ended */
    atomic_bool vm_dying; /* VM_DEATH seen */
    bool attached;        /* started by Agent_OnAttach, in a live VM */
    uint64_t start_ms;    /* wall clock of the binary header */
    uint64_t start_ns;    /* monotonic clock at the same moment */
    /* Frames per stack JVM TI captures: depth=, and what net= CONTROL sets
     * later (cpu=samples and cpu=times keep depth=: their buffers are sized
     * for it). */
    atomic_int trace_depth;
};

extern struct hp_agent hp;

/* Microseconds since the header timestamp, as binary records carry them. */
uint32_t hp_record_time(void);
uint64_t hp_wall_ms(void);
uint64_t hp_mono_ns(void);
/* The date as C ctime() prints it, ending in '\n'. */
void hp_ctime(char buf[32]);

/* A recording's steps (agent.c). Open: options, JVM TI environment,
 * modes, capabilities, callbacks, output and header; false after an error
 * message (at load, the JVM exits instead). Live: what VM_INIT does (also
 * called at once when attached; `thread` is the calling one). End: events
 * and modes stopped, the last dump if `final_dump`, the output closed; false
 * if no recording was live. */
bool hp_recording_open(JavaVM *vm, const char *options, bool attach);
void hp_recording_live(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
bool hp_recording_end(jvmtiEnv *jvmti, JNIEnv *jni, bool final_dump);

/* Turns events on or off globally, reporting any that fail. */
void hp_set_events(jvmtiEventMode mode, const jvmtiEvent *events, size_t n);

/* Returns the JNIEnv of the calling thread, or NULL if it is not attached. */
JNIEnv *hp_jni(void);

#endif
