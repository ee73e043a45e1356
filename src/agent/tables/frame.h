/* Frame table: (method, bytecode location) -> frame ID, with its line. */
#ifndef HPROF_FRAME_H
#define HPROF_FRAME_H

#include "agent/tables/method.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>

struct hp_frame {
    const struct hp_method *method;
    int32_t line;        /* as hp_method_line(); -1 for every frame with lineno=n */
    atomic_bool emitted; /* binary FRAME record written */
};

void hp_frame_table_init(void);
/* The frame's ID (1, 2, ...), 0 when out of memory. */
uint32_t hp_frame_intern(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, jlocation loc);
/* The frame of method m at a line known without a location (> 0, 0: no
 * line table, -1: unknown), for frames the agent makes from method numbers. */
uint32_t hp_frame_intern_line(const struct hp_method *m, int32_t line);
const struct hp_frame *hp_frame_get(uint32_t id);
/* True exactly once per frame: for writers that announce frames lazily. */
bool hp_frame_claim(uint32_t id);

#endif
