/* Splicing the JVM's own heap dump into the output. HotSpot writes a dump
 * file (HotSpotDiagnosticMXBean.dumpHeap); this copies its records into our
 * stream as one of our heap dumps: its file header is dropped; its UTF8 names
 * become ours (interned in our string table, so each is written once per
 * run); LOAD CLASS (names dotted, as ours), FRAME and TRACE get serials and
 * IDs from ranges of their own, fresh at every dump; HEAP DUMP SEGMENTs are
 * copied with the thread and trace serials of their roots and the field names
 * of their CLASS DUMPs rewritten, and object array elements that cite an
 * object the JVM did not dump (CDS-archived mirrors of classes not loaded)
 * set to null.
 *
 * With a file output the copy runs while the JVM still writes (nulled
 * elements are patched in place at the end); with a socket, after the JVM is
 * done, in two passes (the first finds the dumped objects). Either way the
 * output lock is held from the first heap dump record to HEAP DUMP END, so no
 * other record falls between them.
 *
 * In place (a run's first dump, file output): nothing is copied while the
 * JVM writes. Its file is read to find the dumped objects and the serials to
 * change; once the JVM is done the changes are written into its file, which
 * then becomes the output (hp_out_adopt). Its UTF8 records and names stay
 * the JVM's: a first dump cannot meet names of an earlier one. When its IDs
 * could meet ours (UTF8 IDs below 2^32, objects at addresses no higher than
 * our object IDs), the dump is copied as above instead. */
#ifndef HPROF_HD_SPLICE_H
#define HPROF_HD_SPLICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hd_jvm_state { HD_JVM_WRITING, HD_JVM_DONE, HD_JVM_FAILED };

enum hd_splice_result {
    HD_SPLICE_OK,
    HD_SPLICE_NOTHING, /* failed; the output holds no heap dump record of it */
    HD_SPLICE_BROKEN,  /* failed after part of the dump was sent (socket) */
};

struct hd_splice {
    int fd; /* the JVM's file, open for reading */
    const char *path;
    /* Try to make the JVM's file the output (implies overlap). Only for the
     * run's first dump through the JVM's dumper: a later one would bring the
     * JVM's names (and its dummy trace) again. */
    bool inplace;
    bool overlap; /* file output: copy while the JVM writes */
    /* With overlap and fd open for writing: the JVM's file is punched out
     * (FALLOC_FL_PUNCH_HOLE) this many bytes behind the copy, so that its
     * pages are dropped rather than written back to disk; 0: never. */
    uint64_t punch_lag;
    atomic_int jvm; /* enum hd_jvm_state, set by the thread that called the JVM */
    /* Results. */
    uint64_t in_bytes, out_bytes, objects, nulled, punched;
    bool adopted;        /* taken in place */
    bool moved;          /* ... and the output's name moved onto it (else appended) */
    const char *refusal; /* why it was copied instead, or NULL */
    size_t memory;       /* peak bytes the splice held */
    char error[256];
};

enum hd_splice_result hd_splice_run(struct hd_splice *sp);

#endif
