/* Frames of the methods the rewriter numbered. Their names, source file and
 * lines come from what the rewriter saw, so they outlive their class: a
 * loaded class's methods are named through their jmethodIDs (sharing its
 * class serial), an unloaded one's through the names kept by numbers.c.
 *
 * Lines: the top frame's line is given (an allocation site's) or its
 * method's first line; a caller frame's line is the line of its call that
 * can reach the frame above it: an invoke of the callee's name and
 * descriptor (dispatch may change the owner), for a <clinit> a new,
 * getstatic, putstatic or invokestatic of its class, for a lambda's body
 * (called from its hidden class, which no trace shows) a call of the
 * interface method it implements, for a frame of java.lang.invoke's linkage
 * (or past its hidden classes) an invokedynamic, MethodHandle.invokeExact or
 * invoke. None (e.g. a JVM upcall): unknown. Several on different lines: a
 * client with a call hook (heap=sites) numbers each such call (an alias of
 * the method, numbers.h), and its tracker puts that number in place of the
 * method's before the call, so the frame names the call that ran; without
 * (cpu=times), the lowest line. Set HPROF_DEBUG_LINES to count these cases
 * on stderr at exit. */
#ifndef HPROF_INSTRUMENT_FRAMES_H
#define HPROF_INSTRUMENT_FRAMES_H

#include "bci/bci.h"
#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* hp_instr_trace's top_line for the top method's first line. */
#define HP_LINE_FIRST INT32_MIN

/* Keeps the call sites of a method being rewritten (bci method_calls). */
void hp_frames_record(const struct bci_method_calls *mc);
/* The number for a call (bci call_number) of method mnum when it has other
 * calls of the same name and descriptor on other lines, else BCI_SKIP. */
int hp_frames_call_number(int mnum, const struct bci_call *call);
/* The method a number of a trace stands for (itself, or a call's method). */
int hp_instr_method_of(int number);
/* The trace (thread_serial with thread=y) of frames mnums[0..n-1] (method
 * or call numbers), top first; jmethodIDs should be resolved first
 * (hp_instr_want, _resolve). */
uint32_t hp_instr_trace(jvmtiEnv *jvmti, JNIEnv *jni, const jint *mnums, uint32_t n,
                        int32_t top_line, uint32_t thread_serial);

#endif
