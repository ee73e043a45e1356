/* cpu=samples' pseudo-frame kinds (HotSpot thread names, AsyncGetCallTrace
 * results) and core/in_agent.h's noting and deferring of samples. */
#include "agent/core/in_agent.h"
#include "agent/modes/cpu_samples/pseudo.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void thread_names_of_hotspot(void **state)
{
    (void)state;
    static const struct {
        const char *comm;
        enum hp_pseudo kind;
    } cases[] = {
        {"GC Thread#0", HP_PSEUDO_GC_WORKERS},
        {"GC Thread#12", HP_PSEUDO_GC_WORKERS},
        {"G1 Main Marker", HP_PSEUDO_GC_CONCURRENT_MARK},
        {"G1 Conc#0", HP_PSEUDO_GC_CONCURRENT_MARK},
        {"G1 Refine#0", HP_PSEUDO_GC_REFINEMENT},
        {"G1 Service", HP_PSEUDO_GC_SERVICE},
        {"ZDirector", HP_PSEUDO_GC_SERVICE},
        {"ZWorkerYoung#0", HP_PSEUDO_GC_WORKERS},
        {"C2 CompilerThre", HP_PSEUDO_JIT_C2},
        {"C1 CompilerThre", HP_PSEUDO_JIT_C1},
        {"VM Thread", HP_PSEUDO_VM_OPERATIONS},
        {"VM Periodic Tas", HP_PSEUDO_VM_PERIODIC_TASK},
        {"Service Thread", HP_PSEUDO_VM_SERVICE_THREADS},
        {"Monitor Deflati", HP_PSEUDO_VM_SERVICE_THREADS},
        {"HPROF cpu sampl", HP_PSEUDO_AGENT_THREADS},
        {"Zebra", HP_PSEUDO_VM_OTHER_THREADS}, /* "Z" and a capital only */
        {"java", HP_PSEUDO_VM_OTHER_THREADS},
        {"", HP_PSEUDO_VM_OTHER_THREADS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(hp_pseudo_of_thread_name(cases[i].comm), cases[i].kind);
}

static void walk_errors_by_reason(void **state)
{
    (void)state;
    assert_int_equal(hp_pseudo_of_walk_error(0), HP_PSEUDO_UNWALKABLE_NO_JAVA_FRAME);
    assert_int_equal(hp_pseudo_of_walk_error(-2), HP_PSEUDO_UNWALKABLE_IN_GC);
    assert_int_equal(hp_pseudo_of_walk_error(-3), HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA);
    assert_int_equal(hp_pseudo_of_walk_error(-4), HP_PSEUDO_UNWALKABLE_NOT_IN_JAVA);
    assert_int_equal(hp_pseudo_of_walk_error(-5), HP_PSEUDO_UNWALKABLE_IN_JAVA);
    assert_int_equal(hp_pseudo_of_walk_error(-9), HP_PSEUDO_UNWALKABLE_DEOPTIMIZING);
    assert_int_equal(hp_pseudo_of_walk_error(-10), HP_PSEUDO_UNWALKABLE_AT_SAFEPOINT);
    assert_int_equal(hp_pseudo_of_walk_error(-42), HP_PSEUDO_UNWALKABLE_OTHER);
}

static uint32_t taken, late, last_serial;

static void take(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t serial)
{
    (void)jvmti, (void)jni;
    taken += n;
    last_serial = serial;
}

static void unwalkable(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t n, uint32_t serial)
{
    (void)jvmti, (void)jni;
    late += n;
    last_serial = serial;
}

/* Only the pointers' non-NULL-ness matters to in_agent.c. */
#define FAKE_JVMTI ((jvmtiEnv *)&taken)
#define FAKE_JNI ((JNIEnv *)&late)

static void samples_in_agent_code_are_taken_on_leave(void **state)
{
    (void)state;
    static const struct hp_in_agent_sampler s = {take, unwalkable, 1000000000u};
    hp_in_agent_set_sampler(&s);
    taken = late = 0;
    assert_false(hp_in_agent_note(7)); /* not inside */
    hp_in_agent_enter();
    hp_in_agent_enter();
    assert_true(hp_in_agent_note(7));
    assert_true(hp_in_agent_note(7));
    hp_in_agent_leave(FAKE_JVMTI, FAKE_JNI); /* inner: nothing yet */
    assert_int_equal(taken, 0);
    hp_in_agent_leave(FAKE_JVMTI, FAKE_JNI);
    assert_int_equal(taken, 2);
    assert_int_equal(last_serial, 7);
    assert_false(hp_in_agent_note(7));

    /* Deferred: only on a thread that left agent code since its last one. */
    assert_true(hp_in_agent_defer(9)); /* a leave happened above */
    assert_false(hp_in_agent_defer(9));
    hp_in_agent_enter();
    hp_in_agent_leave(FAKE_JVMTI, FAKE_JNI); /* within 1 s of CPU: taken */
    assert_int_equal(taken, 3);
    assert_int_equal(last_serial, 9);
    assert_true(hp_in_agent_defer(5));
    hp_in_agent_thread_end(FAKE_JVMTI, FAKE_JNI); /* never taken: unwalkable */
    assert_int_equal(late, 1);
    assert_int_equal(taken, 3);
    hp_in_agent_set_sampler(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_names_of_hotspot),
        cmocka_unit_test(walk_errors_by_reason),
        cmocka_unit_test(samples_in_agent_code_are_taken_on_leave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
