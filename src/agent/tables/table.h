/* A generic, thread-safe hash table: variable-length keys -> dense indices
 * 1..n with a fixed-size info block each. Entries are never removed, and the
 * key and info of an index stay at the same address for the table's life, so
 * readers may keep pointers. Every other table (classes, methods, frames,
 * traces, strings, sites) is built on this one. */
#ifndef HPROF_TABLE_H
#define HPROF_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct hp_table;

/* Called under the table lock when a key is added, to fill its info. */
typedef void (*hp_table_init_fn)(void *info, const void *key, size_t key_len, void *ctx);

struct hp_table *hp_table_new(size_t info_size);
/* Returns the key's index (adding it, and calling init, if absent), or 0
 * when memory is exhausted or the table is full. *added may be NULL. */
uint32_t hp_table_intern(struct hp_table *t, const void *key, size_t key_len, hp_table_init_fn init,
                         void *ctx, int *added);
uint32_t hp_table_find(struct hp_table *t, const void *key, size_t key_len);
void *hp_table_info(struct hp_table *t, uint32_t index);
const void *hp_table_key(struct hp_table *t, uint32_t index, size_t *key_len);
uint32_t hp_table_count(struct hp_table *t);
void hp_table_free(struct hp_table *t);

#endif
