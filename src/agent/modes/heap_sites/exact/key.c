#include "agent/modes/heap_sites/exact/key.h"

#include "agent/core/error.h"
#include "agent/tables/table.h"

#include <stdlib.h>
#include <string.h>

static struct hp_table *keys;
static int width;
static atomic_bool key_lost;

/* Never a thread serial: marks VM keys. */
#define VM_MARK 0xffffffffu

void hp_key_table_init(int w)
{
    width = w;
    keys = hp_table_new(sizeof(struct hp_key));
}

int hp_key_width(void)
{
    return width;
}

static uint32_t intern(const void *key, size_t len)
{
    if (keys == NULL) return 0;
    /* Past the maximum, existing keys are still found. */
    uint32_t k = hp_table_count(keys) < HP_KEY_MAX
                     ? hp_table_intern(keys, key, len, NULL, NULL, NULL)
                     : hp_table_find(keys, key, len);
    return k <= HP_KEY_MAX ? k : 0;
}

uint32_t hp_key_intern(uint32_t thread_serial, const jint *k)
{
    uint32_t buf[1 + HP_KEY_MAX_INTS];
    if (width > HP_KEY_MAX_INTS) return 0;
    buf[0] = thread_serial;
    memcpy(buf + 1, k, sizeof(jint) * (size_t)width);
    return intern(buf, sizeof(uint32_t) * (size_t)(1 + width));
}

uint32_t hp_key_vm(uint32_t site)
{
    /* Longer than any tracker key of width 1, so never equal to one. */
    uint32_t buf[3] = {VM_MARK, site, VM_MARK};
    return intern(buf, sizeof buf);
}

struct hp_key *hp_key_get(uint32_t key)
{
    return key && keys ? hp_table_info(keys, key) : NULL;
}

uint32_t hp_key_count(void)
{
    return keys ? hp_table_count(keys) : 0;
}

const jint *hp_key_ints(uint32_t key, uint32_t *thread_serial)
{
    size_t len;
    const uint32_t *k = hp_table_key(keys, key, &len);
    *thread_serial = k[0];
    if (k[0] == VM_MARK && len == 3 * sizeof(uint32_t)) {
        *thread_serial = 0;
        return NULL;
    }
    return (const jint *)(k + 1);
}

void hp_key_lost(void)
{
    if (!atomic_exchange(&key_lost, true))
        hp_error("heap=sites: allocation key table full or out of memory; some objects are not "
                 "tagged or counted from now on");
}
