#include "bsite.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)
#define MAX_PAGES (1u << (31 - HP_BSITE_SHIFT - PAGE_BITS)) /* numbers stay positive ints */

static struct hp_bsite *_Atomic pages[MAX_PAGES];
static _Atomic uint32_t count; /* entries 0..count-1 are complete */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int kind_of(const char *sig, uint8_t opcode)
{
    if (opcode == 0xbb) return HP_BSITE_INSTANCE;
    switch (sig[1]) {
    case 'Z':
        return 0;
    case 'B':
        return 1;
    case 'C':
        return 2;
    case 'S':
        return 3;
    case 'I':
        return 4;
    case 'F':
        return 5;
    case 'J':
        return 6;
    case 'D':
        return 7;
    default:
        return 8;
    }
}

static struct hp_bsite *slot(uint32_t idx)
{
    struct hp_bsite *p = atomic_load_explicit(&pages[idx >> PAGE_BITS], memory_order_acquire);
    if (p == NULL) {
        p = calloc(PAGE_SIZE, sizeof *p);
        if (p == NULL) return NULL;
        atomic_store_explicit(&pages[idx >> PAGE_BITS], p, memory_order_release);
    }
    return &p[idx & (PAGE_SIZE - 1)];
}

int hp_bsite_number(void *ctx, const struct bci_site *site, uint32_t cnum)
{
    (void)ctx, (void)cnum;
    const char *type = site->type;
    if (type == NULL || (site->opcode != 0xbb && type[0] != '[')) return BCI_SKIP;
    /* multianewarray: one entry per level, down to the innermost arrays. */
    uint32_t levels = 1;
    if (site->opcode == 0xc5)
        while (type[levels] == '[')
            levels++;
    pthread_mutex_lock(&lock);
    uint32_t first = atomic_load(&count);
    bool ok = first + levels <= MAX_PAGES * PAGE_SIZE;
    for (uint32_t l = 0; ok && l < levels; l++) {
        struct hp_bsite *b = slot(first + l);
        ok = b != NULL && (b->sig = strdup(type + l)) != NULL;
        if (!ok) break;
        b->mnum = site->method_number;
        b->bci = site->bci;
        b->line = site->line;
    }
    if (ok) atomic_store_explicit(&count, first + levels, memory_order_release);
    pthread_mutex_unlock(&lock);
    if (!ok) return BCI_SKIP;
    int multi = site->opcode == 0xc5 && levels > 1 ? HP_BSITE_MULTI : 0;
    return (int)(first << HP_BSITE_SHIFT) | multi | kind_of(type, site->opcode);
}

struct hp_bsite *hp_bsite_get(int32_t number)
{
    if (number < 0) return NULL;
    uint32_t idx = (uint32_t)number >> HP_BSITE_SHIFT;
    if (idx >= atomic_load_explicit(&count, memory_order_acquire)) return NULL;
    return &atomic_load_explicit(&pages[idx >> PAGE_BITS],
                                 memory_order_acquire)[idx & (PAGE_SIZE - 1)];
}
