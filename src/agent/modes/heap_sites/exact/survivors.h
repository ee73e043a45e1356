/* The parts of survivors.c that kept.c shares: the budget of chunks, the
 * kept references, and tagging one recorded object now. */
#ifndef HPROF_HEAP_SITES_EXACT_SURVIVORS_H
#define HPROF_HEAP_SITES_EXACT_SURVIVORS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_SURVIVORS_CHUNK_ENTRIES 1024

/* One budget for threads' and kept chunks (12 bytes an entry, and the
 * JVM's 8 for the reference): at most 384 MB of chunks, 32 M objects
 * pending. Past it objects are tagged at once, each a larger tag-map
 * entry: the cap bounds nothing the fallback would not use, and a young
 * generation of more than 8 M objects (a 400 MB eden of small ones)
 * overflowed 8 M, its tagging 2x the CPU (JDK 25 Workload 4 M: 12.7 s
 * against 6.0 s at 32 M; 7.7 s at 128 M). Kept chunks take at most half. */
#define HP_SURVIVORS_MAX_CHUNKS 32768
bool hp_survivors_chunk_reserve(void);
void hp_survivors_chunk_release(void);

/* Tags the object of `ref` if it is alive, and deletes the reference
 * unless the JVM is dying. */
void hp_survivors_tag_now(jvmtiEnv *jvmti, JNIEnv *jni, jweak ref, uint32_t site_bits);

/* kept.c: the references whose objects lived through a collection, dense,
 * swept again for dead ones once they grew by half. `add` keeps n of them
 * (those it has no room for are tagged now); `sweep` is the tagger's after
 * a collection; `tag_all` tags what they hold and deletes them (a dump). */
void hp_survivors_kept_add(jvmtiEnv *jvmti, JNIEnv *jni, const jweak *refs,
                           const uint32_t *site_bits, uint32_t n);
void hp_survivors_kept_sweep(JNIEnv *jni);
void hp_survivors_kept_tag_all(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
