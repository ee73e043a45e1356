#include "agent/modes/heap_sites/exact/bsite.h"

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

/* Appends `levels` entries for the site, the first of signature `sig`,
 * each next one a dimension down; the first index, or -1. */
static int64_t add(int mnum, uint32_t bci, int32_t line, const char *sig, uint32_t levels)
{
    uint32_t first = atomic_load(&count);
    bool ok = first + levels <= MAX_PAGES * PAGE_SIZE;
    for (uint32_t l = 0; ok && l < levels; l++) {
        struct hp_bsite *b = slot(first + l);
        ok = b != NULL && (b->sig = strdup(sig + l)) != NULL;
        if (!ok) break;
        b->mnum = mnum;
        b->bci = bci;
        b->line = line;
    }
    if (!ok) return -1;
    atomic_store_explicit(&count, first + levels, memory_order_release);
    return first;
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
    int64_t first = add(site->method_number, site->bci, site->line, type, levels);
    pthread_mutex_unlock(&lock);
    if (first < 0) return BCI_SKIP;
    int multi = site->opcode == 0xc5 && levels > 1 ? HP_BSITE_MULTI : 0;
    return (int)(first << HP_BSITE_SHIFT) | multi | kind_of(type, site->opcode);
}

/* The calls counted at their site, and what their result is. */
static const struct {
    uint8_t opcode;
    const char *owner, *name, *desc, *box; /* box: the boxed class's signature */
} hooked[] = {
    {0xb8, "java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;", "Ljava/lang/Integer;"},
    {0xb8, "java/lang/Long", "valueOf", "(J)Ljava/lang/Long;", "Ljava/lang/Long;"},
    {0xb8, "java/lang/Short", "valueOf", "(S)Ljava/lang/Short;", "Ljava/lang/Short;"},
    {0xb8, "java/lang/Character", "valueOf", "(C)Ljava/lang/Character;", "Ljava/lang/Character;"},
    {0xb8, "java/lang/Float", "valueOf", "(F)Ljava/lang/Float;", "Ljava/lang/Float;"},
    {0xb8, "java/lang/Double", "valueOf", "(D)Ljava/lang/Double;", "Ljava/lang/Double;"},
    /* newInstance, not the newArray it calls: Arrays.copyOf, hooked itself,
     * calls newInstance, and must not have its copy counted twice. */
    {0xb8, "java/lang/reflect/Array", "newInstance", "(Ljava/lang/Class;I)Ljava/lang/Object;",
     NULL},
    {0xb8, "java/util/Arrays", "copyOf",
     "([Ljava/lang/Object;ILjava/lang/Class;)[Ljava/lang/Object;", NULL},
    {0xb8, "java/util/Arrays", "copyOfRange",
     "([Ljava/lang/Object;IILjava/lang/Class;)[Ljava/lang/Object;", NULL},
    {0xb6, "jdk/internal/misc/Unsafe", "allocateInstance", "(Ljava/lang/Class;)Ljava/lang/Object;",
     NULL},
    {0xb6, "jdk/internal/misc/Unsafe", "allocateUninitializedArray0",
     "(Ljava/lang/Class;I)Ljava/lang/Object;", NULL},
};

/* The entry of `hooked` for this method, -1 if none. */
static int hooked_index(const char *owner, const char *name, const char *desc)
{
    for (size_t i = 0; i < sizeof hooked / sizeof hooked[0]; i++)
        if (strcmp(hooked[i].name, name) == 0 && strcmp(hooked[i].owner, owner) == 0 &&
            strcmp(hooked[i].desc, desc) == 0)
            return (int)i;
    return -1;
}

/* Intrinsics whose JIT replacement allocates and whose calls are not hooked:
 * rewritten, they would count only where not replaced. C2's multiplyToLen
 * makes the product array when given none (JDK 17). */
static const struct {
    const char *owner, *name;
} jit_allocates[] = {{"java/math/BigInteger", "implMultiplyToLen"}};

bool hp_bsite_rewrites_intrinsic(const char *owner, const char *name, const char *desc)
{
    if (hooked_index(owner, name, desc) >= 0) return false;
    for (size_t i = 0; i < sizeof jit_allocates / sizeof jit_allocates[0]; i++)
        if (strcmp(jit_allocates[i].name, name) == 0 && strcmp(jit_allocates[i].owner, owner) == 0)
            return false;
    return true;
}

int hp_bsite_invoke(void *ctx, const struct bci_invoke *inv, uint32_t cnum)
{
    (void)ctx, (void)cnum;
    const char *box = NULL;
    /* clone: super.clone() (an override ends in it, so the outer call is not
     * hooked) and clone() of an array. */
    bool hit = strcmp(inv->name, "clone") == 0 && strcmp(inv->desc, "()Ljava/lang/Object;") == 0 &&
               (inv->opcode == 0xb7 || (inv->opcode == 0xb6 && inv->owner[0] == '['));
    int h = hit ? -1 : hooked_index(inv->owner, inv->name, inv->desc);
    if (h >= 0 && hooked[h].opcode == inv->opcode) {
        hit = true;
        box = hooked[h].box;
    }
    if (!hit) return BCI_SKIP;
    pthread_mutex_lock(&lock);
    int64_t idx = add(inv->method_number, inv->bci, inv->line, box ? box : "", 1);
    pthread_mutex_unlock(&lock);
    if (idx < 0) return BCI_SKIP;
    return (int)(idx << HP_BSITE_SHIFT) | (box ? HP_BSITE_BOX : HP_BSITE_DYN);
}

bool hp_bsite_marked(void *ctx, const struct bci_invoke *inv)
{
    (void)ctx;
    return inv->opcode == 0xb6 && strcmp(inv->name, "allocateInstance") == 0 &&
           strcmp(inv->owner, "jdk/internal/misc/Unsafe") == 0 &&
           strcmp(inv->desc, "(Ljava/lang/Class;)Ljava/lang/Object;") == 0;
}

/* Derived sites: (DYN site index, signature) -> index, open addressing. */
struct derived_ent {
    uint32_t dyn, idx; /* idx + 1, 0: empty */
};
static struct derived_ent *derived;
static uint32_t n_derived, derived_cap;

static uint32_t derived_hash(uint32_t dyn, const char *sig)
{
    uint32_t h = dyn * 0x9E3779B1u;
    for (const char *p = sig; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x01000193u;
    return h;
}

static bool derived_grow(void)
{
    uint32_t cap = derived_cap ? 2 * derived_cap : 256;
    struct derived_ent *t = calloc(cap, sizeof *t);
    if (t == NULL) return false;
    for (uint32_t i = 0; i < derived_cap; i++) {
        if (derived[i].idx == 0) continue;
        struct hp_bsite *b = slot(derived[i].idx - 1);
        uint32_t p = derived_hash(derived[i].dyn, b->sig) & (cap - 1);
        while (t[p].idx)
            p = (p + 1) & (cap - 1);
        t[p] = derived[i];
    }
    free(derived);
    derived = t;
    derived_cap = cap;
    return true;
}

int hp_bsite_derive(int32_t dyn, const char *sig)
{
    struct hp_bsite *base = hp_bsite_get(dyn);
    if (base == NULL || (dyn & HP_BSITE_KIND_MASK) != HP_BSITE_DYN) return -1;
    uint32_t di = (uint32_t)dyn >> HP_BSITE_SHIFT;
    int64_t idx = -1;
    pthread_mutex_lock(&lock);
    if (2 * (n_derived + 1) <= derived_cap || derived_grow()) {
        uint32_t p = derived_hash(di, sig) & (derived_cap - 1);
        for (; derived[p].idx; p = (p + 1) & (derived_cap - 1))
            if (derived[p].dyn == di && strcmp(slot(derived[p].idx - 1)->sig, sig) == 0) break;
        if (derived[p].idx)
            idx = derived[p].idx - 1;
        else if ((idx = add(base->mnum, base->bci, base->line, sig, 1)) >= 0) {
            derived[p].dyn = di;
            derived[p].idx = (uint32_t)idx + 1;
            n_derived++;
        }
    }
    pthread_mutex_unlock(&lock);
    if (idx < 0) return -1;
    return (int)(idx << HP_BSITE_SHIFT) | kind_of(sig, sig[0] == '[' ? 0xbc : 0xbb);
}

uint32_t hp_bsite_count(void)
{
    return atomic_load_explicit(&count, memory_order_acquire);
}

struct hp_bsite *hp_bsite_get(int32_t number)
{
    if (number < 0) return NULL;
    uint32_t idx = (uint32_t)number >> HP_BSITE_SHIFT;
    if (idx >= atomic_load_explicit(&count, memory_order_acquire)) return NULL;
    return &atomic_load_explicit(&pages[idx >> PAGE_BITS],
                                 memory_order_acquire)[idx & (PAGE_SIZE - 1)];
}
