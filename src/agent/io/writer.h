/* The agent's single output stream: buffered, thread-safe, record-atomic.
 *
 * Each hp_out_write() call is one whole record (or line); the buffer is only
 * ever flushed at record boundaries, so a killed JVM leaves whole records up
 * to the last flush. A failed write (full disk, lost socket) is reported once
 * and later output is dropped: the profiled program never stops for it. A
 * file is then cut back to its last whole record, so readers accept it.
 * Pipes, FIFOs, devices and sockets are written without blocking: output
 * that nobody takes for HP_OUT_STALL_MS is given up the same way. */
#ifndef HPROF_WRITER_H
#define HPROF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_OUT_STALL_MS 10000

/* Takes ownership of fd. `what` names the target in error messages.
 * `whole_prefix` (files; NULL for none) finds where the last whole record
 * of the file ends (output/encoder.h). */
void hp_out_open(int fd, bool is_socket, const char *what,
                 uint64_t (*whole_prefix)(int fd, uint64_t size));
void hp_out_write(const void *data, size_t len);
/* printf into one record. */
void hp_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Holds the stream across several records (a report section) so that records
 * from other threads cannot interleave; nests. Lock order: code that writes
 * while holding another agent lock must take this one first. */
void hp_out_lock(void);
void hp_out_unlock(void);
void hp_out_flush(void);
void hp_out_close(void);
/* Bytes accepted so far (buffered or written). */
uint64_t hp_out_offset(void);
/* File output only (false for a socket, a failed or closed output): after a
 * flush, overwrites n bytes at `offset` (< hp_out_offset()), or drops
 * everything from `offset` on. For heap dumps spliced from the JVM's own. */
bool hp_out_patch(uint64_t offset, const void *p, size_t n);
bool hp_out_truncate(uint64_t offset);
/* File output only: adds a complete HPROF file that another writer made (the
 * JVM's heap dump, already given our serials) to the output: its records
 * from `header` to `len`. Where the output's name can be moved onto it (same
 * directory, a plain file with one link) and the output so far is the
 * smaller part, `fd`'s file becomes the output: the output's header, then
 * the file's records, then the output's records, renamed over the output;
 * otherwise its records are copied to the end of the output. Either way
 * the kernel copies the smaller part only. `path` names `fd`'s file;
 * *moved tells which way it went. */
bool hp_out_adopt(int fd, const char *path, uint64_t header, uint64_t len, bool *moved);

#endif
