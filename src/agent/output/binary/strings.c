/* UTF8 records: each distinct string is written once, before first use. */
#include "agent/io/writer.h"
#include "agent/output/binary/record.h"
#include "agent/tables/table.h"

#include <pthread.h>
#include <string.h>

static struct hp_table *strings;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void create(void)
{
    strings = hp_table_new(0);
}

uint64_t hp_bin_string(const char *s)
{
    if (s == NULL) return 0;
    pthread_once(&once, create);
    size_t n = strlen(s);
    /* Under the output lock, so no record citing the ID can precede it. */
    hp_out_lock();
    int added = 0;
    uint32_t id = strings ? hp_table_intern(strings, s, n, NULL, NULL, &added) : 0;
    if (added) {
        struct hp_rec r;
        hp_rec_begin(&r, HP_UTF8);
        hp_rec_id(&r, id);
        hp_rec_bytes(&r, s, n);
        hp_rec_end(&r);
    }
    hp_out_unlock();
    return id;
}

void hp_bin_strings_forget(void)
{
    pthread_once(&once, create);
    hp_out_lock();
    /* Only used under the output lock: nobody else holds the old table. */
    if (strings) hp_table_free(strings);
    strings = hp_table_new(0);
    hp_out_unlock();
}

uint64_t hp_bin_strings_issued(void)
{
    pthread_once(&once, create);
    hp_out_lock();
    uint64_t n = strings ? hp_table_count(strings) : 0;
    hp_out_unlock();
    return n;
}
