/* Test JVM TI agent: rewrites every class the VM loads (from the primordial
 * phase on) with all bci hooks calling hprofbci/Tracker, which the test
 * patches into java.base.  At VM init java.base is made to export the
 * tracker package to every module.  Options: "nocatch" turns the catch-all
 * exit handler off; "local" uses the entry_local hooks instead, "wide" their
 * long form, whose local the allocation hooks get too; "quiet"
 * omits per-class skip reasons.  At VM death it
 * prints how many classes were rewritten and why others were not. */
#include "bci/bci.h"
#include "tracker_hooks.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int seen, rewritten, unchanged, failed, class_counter;
static int catch_all = 1, local, wide, quiet;

static void JNICALL on_load_hook(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
                                 const char *name, jobject pd, jint len, const unsigned char *data,
                                 jint *new_len, unsigned char **new_data)
{
    (void)jni, (void)redefined, (void)loader, (void)pd;
    char buf[512];
    if (!name && bci_class_name(data, (size_t)len, buf, sizeof buf) >= 0) name = buf;
    if (name && strncmp(name, "hprofbci/", 9) == 0) return;
    atomic_fetch_add(&seen, 1);
    struct tracker_numbers nums = {.cls = atomic_fetch_add(&class_counter, 1)};
    struct bci_hooks h = tracker_hooks(&nums);
    h.exit_catch_all = catch_all;
    if (local) {
        h.entry_local = BCI_LOCAL_INT;
        h.entry_name = "enterLocal";
        h.entry_desc = "(I)I";
        h.exit_name = "exitLocal";
        h.exit_desc = "(I)V";
        h.resume_name = "resumeLocal";
        h.resume_desc = "(I)V";
    }
    if (wide) {
        h.entry_local = BCI_LOCAL_LONG;
        h.alloc_local = 1;
        h.entry_name = "enterWide";
        h.entry_desc = "(J)J";
        h.long_number = tracker_wide_number;
        h.exit_name = "exitWide";
        h.exit_desc = "(J)V";
        h.resume_name = "resumeWide";
        h.resume_desc = "(JJ)V";
        h.new_obj_desc = "(IJ)V";
        h.new_array_desc = "(Ljava/lang/Object;IJ)V";
    }
    h.class_number = tracker_spread(nums.cls);
    struct bci_result r;
    if (!bci_rewrite(data, (size_t)len, &h, &r)) {
        atomic_fetch_add(&unchanged, 1);
        if (strcmp(r.reason, "nothing to inject") != 0) {
            atomic_fetch_add(&failed, 1);
            if (!quiet)
                fprintf(stderr, "bci-agent: %s unchanged: %s\n", name ? name : "?", r.reason);
        }
        return;
    }
    unsigned char *out;
    if ((*jvmti)->Allocate(jvmti, (jlong)r.len, &out) == JVMTI_ERROR_NONE) {
        memcpy(out, r.data, r.len);
        *new_data = out;
        *new_len = (jint)r.len;
        atomic_fetch_add(&rewritten, 1);
    }
    bci_free(&r);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    (void)thread;
    jobject base;
    jint n;
    jobject *mods;
    if ((*jvmti)->GetNamedModule(jvmti, NULL, "java/lang", &base) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetAllModules(jvmti, &n, &mods) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "bci-agent: cannot list modules\n");
        exit(3);
    }
    for (jint i = 0; i < n; i++)
        (*jvmti)->AddModuleExports(jvmti, base, "hprofbci", mods[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)mods);
    (void)jni;
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    (void)jvmti, (void)jni;
    fprintf(stderr, "bci-agent: %d classes seen, %d rewritten, %d unchanged (%d not handled)\n",
            seen, rewritten, unchanged, failed);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
    if (options && strstr(options, "nocatch")) catch_all = 0;
    if (options && strstr(options, "quiet")) quiet = 1;
    if (options && strstr(options, "local")) local = 1;
    if (options && strstr(options, "wide")) wide = 1;
    jvmtiCapabilities caps = {0};
    caps.can_generate_all_class_hook_events = 1;
    caps.can_generate_early_class_hook_events = 1;
    jvmtiEventCallbacks cb = {0};
    cb.ClassFileLoadHook = on_load_hook;
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    jvmtiEvent ev[] = {JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH};
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, ev[i], NULL) !=
            JVMTI_ERROR_NONE)
            return JNI_ERR;
    return JNI_OK;
}
