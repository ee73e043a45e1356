#include "cli/heap/bigarray.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20 };

/* Asks for huge pages over the whole 2 MB blocks inside [p, p + bytes). */
static void *prefer_huge(void *p, size_t bytes)
{
    uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    uintptr_t to = ((uintptr_t)p + bytes) / HUGE_PAGE * HUGE_PAGE;
    if (p && from < to) madvise((void *)from, to - from, MADV_HUGEPAGE);
    return p;
}

void *hp_big_malloc(size_t bytes)
{
    return prefer_huge(malloc(bytes ? bytes : 1), bytes);
}

void *hp_big_calloc(size_t bytes)
{
    return prefer_huge(calloc(bytes ? bytes : 1, 1), bytes);
}

void *hp_big_realloc(void *p, size_t bytes)
{
    return prefer_huge(realloc(p, bytes ? bytes : 1), bytes);
}
