/* A bounded lock-free queue of stack samples: many producers (the SIGPROF
 * handler on any thread, so only atomics, no locks or allocation), one
 * consumer at a time (the drain). A full queue drops the sample and counts
 * it. */
#ifndef HPROF_CPU_RING_H
#define HPROF_CPU_RING_H

#include <jni.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* AsyncGetCallTrace's frame: lineno holds the bytecode index, or a negative
 * code (-3 for a native method). */
struct hp_agct_frame {
    jint lineno;
    jmethodID method;
};

/* n_frames of a sample the handler deferred (core/in_agent.h): skipped. */
#define HP_SAMPLE_DEFERRED INT32_MIN

struct hp_sample {
    atomic_size_t seq;      /* the queue's turn marker */
    uint32_t thread_serial; /* 0: not known */
    bool carrier;           /* taken on a virtual threads' carrier thread */
    jint n_frames;          /* AsyncGetCallTrace's count, or its error code */
    struct hp_agct_frame frames[];
};

/* Sizes the queue for samples of at most `depth` frames, empty (again);
 * false without memory. */
bool hp_ring_init(int depth);
/* Producer side: a free slot to fill, or NULL (full: counted as dropped). */
struct hp_sample *hp_ring_claim(void);
void hp_ring_publish(struct hp_sample *s);
/* Consumer side: the oldest published sample, or NULL; then hp_ring_release. */
struct hp_sample *hp_ring_peek(void);
void hp_ring_release(struct hp_sample *s);
uint64_t hp_ring_dropped(void);

#endif
