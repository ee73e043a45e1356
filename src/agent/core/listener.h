/* The net= command channel (reference section 5): the "HPROF listener
 * thread" reads commands from the output socket and answers them on the
 * output stream. */
#ifndef HPROF_LISTENER_H
#define HPROF_LISTENER_H

#include <jvmti.h>
#include <stdbool.h>

/* Starts the listener on the connected socket `fd` (the output's; the
 * listener only reads it). Call from VM_INIT. False after an error message. */
bool hp_listener_start(jvmtiEnv *jvmti, JNIEnv *jni, int fd);
/* Ends the listener: wakes it and waits for the command it is running, if
 * any. Returns at once on the listener itself and while it is ending the
 * VM (EXIT), so a VM death started by EXIT or racing with it cannot wait
 * on the listener. */
void hp_listener_stop(void);

#endif
