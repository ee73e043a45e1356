/* A small, well-formed file shaped like the hprof agent's format=b output. */
#ifndef HPROF_TEST_FIXTURE_H
#define HPROF_TEST_FIXTURE_H

#include "hpbuild.h"

/* IDs used by the fixture. */
enum {
    FX_OBJECT_CLASS = 0x1000,
    FX_FOO_CLASS = 0x1010,
    FX_FOO_ARRAY_CLASS = 0x1020,
    FX_FOO_1 = 0x2000,
    FX_FOO_2 = 0x2010,
    FX_ARRAY = 0x2020,
    FX_CHARS = 0x2030,
    FX_THREAD_OBJ = 0x2040,
};

/*
 * CONTROL SETTINGS, strings, LOAD CLASS x4, FRAME x2, TRACE x2, START THREAD,
 * heap dump 1 (HEAP DUMP, or segments when segmented), ALLOC SITES,
 * CPU SAMPLES, END THREAD, and with `two_dumps` a second, segmented dump
 * (version 1.0.2 only) split over two segments.
 */
void fx_build(hb_buf *b, uint32_t id_size, int segmented, int two_dumps);

/* Fields of Foo: int count, Foo next, long big (superclass Object has none). */
void fx_foo_values(hb_buf *b, uint32_t count, uint64_t next, uint64_t big);

/* Writes heap dump 1's sub-records (roots, classes, objects). */
void fx_heap_body(hb_buf *b);

#endif
