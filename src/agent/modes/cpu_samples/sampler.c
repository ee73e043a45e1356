#include "agent/modes/cpu_samples/sampler.h"

#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/in_agent.h"
#include "agent/modes/cpu_samples/ring.h"
#include "agent/modes/cpu_samples/timers.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* AsyncGetCallTrace's contract (HotSpot's forte.cpp, exported since JDK 6
 * but never declared in a header): fills `frames` with at most `depth`
 * frames of the calling thread as of `ucontext`; num_frames < 0 is an
 * error code. It needs the thread's JNIEnv and the ClassLoad event on. */
struct agct_trace {
    JNIEnv *env;
    jint num_frames;
    struct hp_agct_frame *frames;
};
typedef void (*agct_fn)(struct agct_trace *trace, jint depth, void *ucontext);

static agct_fn agct;
static jint max_depth;
static atomic_bool enabled;

/* forte.cpp's ticks_unknown_not_Java, ticks_not_walkable_not_Java and
 * ticks_unknown_Java ("in Java, but the top frame is not walkable"). */
#define AGCT_UNKNOWN_NOT_JAVA (-3)
#define AGCT_NOT_WALKABLE_NOT_JAVA (-4)
#define AGCT_UNKNOWN_JAVA (-5)

/* The usual cause of AGCT_UNKNOWN_JAVA is a PC in a frameless leaf stub
 * (an arraycopy or other intrinsic stub, a vtable stub) called from
 * compiled code: the stack top is then the return address into the caller.
 * Retrying from there, on a copy of the context, attributes the sample to
 * the calling Java frame. AsyncGetCallTrace checks the frame it is given
 * (safe_for_sender), so a wrong guess ends in the same error, not a crash. */
static void retry_from_caller(struct agct_trace *trace, void *ucontext)
{
#if defined(__x86_64__)
    ucontext_t caller = *(const ucontext_t *)ucontext;
    greg_t *regs = caller.uc_mcontext.gregs;
    regs[REG_RIP] = *(const greg_t *)regs[REG_RSP]; /* the stack is mapped: SP points into it */
    regs[REG_RSP] += sizeof(greg_t);
    agct(trace, max_depth, &caller);
#else
    (void)trace;
    (void)ucontext;
#endif
}

/* Else a stub that made a frame (push rbp; mov rbp, rsp, as the arraycopy
 * stubs do) keeps its return address above its saved frame pointer. The
 * frame pointer is only followed when it lies in the thread's own stack
 * between the stack pointer and the stack's end, so both reads stay in
 * mapped memory whatever rbp holds. */
static void retry_from_frame(struct agct_trace *trace, void *ucontext, uintptr_t stack_end)
{
#if defined(__x86_64__)
    ucontext_t caller = *(const ucontext_t *)ucontext;
    greg_t *regs = caller.uc_mcontext.gregs;
    uintptr_t fp = (uintptr_t)regs[REG_RBP], sp = (uintptr_t)regs[REG_RSP];
    if (fp < sp || fp % sizeof(greg_t) != 0 || stack_end < 2 * sizeof(greg_t) ||
        fp > stack_end - 2 * sizeof(greg_t))
        return;
    const greg_t *frame = (const greg_t *)fp;
    regs[REG_RIP] = frame[1];
    regs[REG_RBP] = frame[0];
    regs[REG_RSP] = (greg_t)fp + (greg_t)(2 * sizeof(greg_t));
    agct(trace, max_depth, &caller);
#else
    (void)trace;
    (void)ucontext;
    (void)stack_end;
#endif
}

static void sample(struct hp_cpu_timer *t, void *ucontext)
{
    JNIEnv *env = NULL;
    /* GetEnv only reads the VM's thread-local current thread. */
    if ((*hp.vm)->GetEnv(hp.vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK || env == NULL) {
        hp_timers_disarm_self(t); /* a GC or other VM-internal thread */
        return;
    }
    uint32_t serial = atomic_load_explicit(&t->thread_serial, memory_order_relaxed);
    if (hp_in_agent_note(serial)) return; /* taken when the agent code returns */
    struct hp_sample *s = hp_ring_claim();
    if (s == NULL) return;
    s->thread_serial = serial;
    s->carrier = t->carrier;
    struct agct_trace trace = {env, 0, s->frames};
    agct(&trace, max_depth, ucontext);
    if (trace.num_frames == AGCT_UNKNOWN_JAVA) retry_from_caller(&trace, ucontext);
    if (trace.num_frames == AGCT_UNKNOWN_JAVA) retry_from_frame(&trace, ucontext, t->stack_end);
    /* Outside Java code and not walkable, e.g. in the VM's allocation slow
     * path: the allocation hook right after it knows the stack. */
    bool outside_java =
        trace.num_frames == AGCT_UNKNOWN_NOT_JAVA || trace.num_frames == AGCT_NOT_WALKABLE_NOT_JAVA;
    s->n_frames = outside_java && hp_in_agent_defer(serial) ? HP_SAMPLE_DEFERRED : trace.num_frames;
    hp_ring_publish(s);
}

static void on_sigprof(int sig, siginfo_t *si, void *ucontext)
{
    (void)sig;
    int saved = errno;
    struct hp_cpu_timer *t =
        si->si_code == SI_TIMER ? hp_timers_from_signal(si->si_value.sival_ptr) : NULL;
    /* The tid check rejects a late signal of a slot since given to another thread. */
    if (t && atomic_load_explicit(&enabled, memory_order_acquire) &&
        atomic_load_explicit(&t->tid, memory_order_relaxed) == gettid())
        sample(t, ucontext);
    errno = saved;
}

static agct_fn find_agct(void)
{
    void *f = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (f == NULL) {
        void *jvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
        if (jvm) f = dlsym(jvm, "AsyncGetCallTrace");
    }
    agct_fn fn;
    memcpy(&fn, &f, sizeof fn); /* object pointer to function pointer, as POSIX allows */
    return fn;
}

bool hp_sampler_install(int depth)
{
    agct = find_agct();
    if (agct == NULL) {
        hp_error("cpu=samples: this JVM has no AsyncGetCallTrace");
        return false;
    }
    max_depth = depth;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) {
        hp_error("cpu=samples: cannot install the SIGPROF handler (%s)", strerror(errno));
        return false;
    }
    return true;
}

void hp_sampler_enable(bool on)
{
    atomic_store_explicit(&enabled, on, memory_order_release);
}

void hp_sampler_uninstall(void)
{
    hp_sampler_enable(false);
    signal(SIGPROF, SIG_IGN);
}
