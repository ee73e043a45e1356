#include "fixture.h"

/* String IDs. */
enum {
    S_OBJECT = 1,
    S_FOO,
    S_FOO_ARRAY,
    S_CHARS,
    S_COUNT,
    S_NEXT,
    S_BIG,
    S_MAIN,
    S_RUN,
    S_SIG,
    S_SRC,
    S_GROUP,
    S_INIT,
};

void fx_foo_values(hb_buf *b, uint32_t count, uint64_t next, uint64_t big)
{
    hb_u4(b, count);
    hb_id(b, next);
    hb_u8(b, big);
}

void fx_heap_body(hb_buf *b)
{
    static const uint64_t names[] = {S_COUNT, S_NEXT, S_BIG};
    static const uint8_t types[] = {10, 2, 11};
    uint64_t elems[3] = {FX_FOO_1, 0, FX_FOO_2};
    hb_u1(b, 0x08); /* ROOT THREAD OBJECT */
    hb_id(b, FX_THREAD_OBJ);
    hb_u4(b, 200001);
    hb_u4(b, 300001);
    hb_u1(b, 0x05); /* ROOT STICKY CLASS */
    hb_id(b, FX_OBJECT_CLASS);
    hb_u1(b, 0x03); /* ROOT JAVA FRAME */
    hb_id(b, FX_FOO_1);
    hb_u4(b, 200001);
    hb_u4(b, 0);
    hb_u1(b, 0x01); /* ROOT JNI GLOBAL */
    hb_id(b, FX_ARRAY);
    hb_id(b, 1);
    hb_class_dump(b, FX_OBJECT_CLASS, 0, 0, 0, NULL, NULL);
    hb_class_dump(b, FX_FOO_CLASS, FX_OBJECT_CLASS, 12 + b->id_size, 3, names, types);
    hb_class_dump(b, FX_FOO_ARRAY_CLASS, FX_OBJECT_CLASS, 0, 0, NULL, NULL);
    hb_u1(b, 0x21);
    hb_id(b, FX_FOO_1);
    hb_u4(b, 300001);
    hb_id(b, FX_FOO_CLASS);
    hb_u4(b, 12 + b->id_size);
    fx_foo_values(b, 7, FX_FOO_2, 1);
    hb_u1(b, 0x21);
    hb_id(b, FX_FOO_2);
    hb_u4(b, 300001);
    hb_id(b, FX_FOO_CLASS);
    hb_u4(b, 12 + b->id_size);
    fx_foo_values(b, 8, 0, 2);
    hb_u1(b, 0x21); /* the thread object, typed as a plain Object */
    hb_id(b, FX_THREAD_OBJ);
    hb_u4(b, 300000);
    hb_id(b, FX_OBJECT_CLASS);
    hb_u4(b, 0);
    hb_obj_array(b, FX_ARRAY, FX_FOO_ARRAY_CLASS, 3, elems);
    hb_prim_array(b, FX_CHARS, 5, 5, 2);
}

void fx_build(hb_buf *b, uint32_t id_size, int segmented, int two_dumps)
{
    static const uint64_t frames[] = {0x7001, 0x7002};
    hb_init(b, segmented || two_dumps ? "1.0.2" : "1.0.1", id_size);
    hb_control(b, 3, 4);
    hb_utf8(b, S_OBJECT, "java.lang.Object");
    hb_utf8(b, S_FOO, "Foo");
    hb_utf8(b, S_FOO_ARRAY, "Foo[]");
    hb_utf8(b, S_CHARS, "char[]");
    hb_utf8(b, S_COUNT, "count");
    hb_utf8(b, S_NEXT, "nextFoo");
    hb_utf8(b, S_BIG, "big");
    hb_utf8(b, S_MAIN, "main");
    hb_utf8(b, S_RUN, "run");
    hb_utf8(b, S_SIG, "()V");
    hb_utf8(b, S_SRC, "Foo.java");
    hb_utf8(b, S_GROUP, "system");
    hb_utf8(b, S_INIT, "<init>");
    hb_trace(b, 300000, 0, 0, NULL);
    hb_load_class(b, 100001, FX_OBJECT_CLASS, 300000, S_OBJECT);
    hb_load_class(b, 100002, FX_FOO_CLASS, 300000, S_FOO);
    hb_load_class(b, 100003, FX_FOO_ARRAY_CLASS, 300000, S_FOO_ARRAY);
    hb_load_class(b, 100004, 0x1030, 300000, S_CHARS);
    hb_frame(b, 0x7001, S_INIT, S_SIG, S_SRC, 100002, 12);
    hb_frame(b, 0x7002, S_RUN, S_SIG, 0, 100002, -1);
    hb_trace(b, 300001, 200001, 2, frames);
    hb_start_thread(b, 200001, FX_THREAD_OBJ, 300001, S_MAIN, S_MAIN, S_GROUP);

    size_t r = hb_begin(b, segmented ? 0x1C : 0x0C);
    fx_heap_body(b);
    hb_end(b, r);
    if (segmented) hb_end(b, hb_begin(b, 0x2C));

    r = hb_begin(b, 0x06); /* ALLOC SITES */
    hb_u2(b, 0);
    hb_u4(b, 0x38d1b717); /* 0.0001f */
    hb_u4(b, 300);        /* live bytes */
    hb_u4(b, 4);          /* live instances */
    hb_u8(b, 1000);
    hb_u8(b, 10);
    hb_u4(b, 2);
    uint32_t site[2][7] = {{0, 100002, 300001, 200, 3, 900, 9},
                           {5, 100004, 300000, 100, 1, 100, 1}};
    for (int i = 0; i < 2; i++) {
        hb_u1(b, (uint8_t)site[i][0]);
        for (int j = 1; j < 7; j++)
            hb_u4(b, site[i][j]);
    }
    hb_end(b, r);

    r = hb_begin(b, 0x0D); /* CPU SAMPLES */
    hb_u4(b, 10);
    hb_u4(b, 2);
    hb_u4(b, 7);
    hb_u4(b, 300001);
    hb_u4(b, 3);
    hb_u4(b, 300000);
    hb_end(b, r);
    hb_end_thread(b, 200001);

    if (two_dumps) {
        r = hb_begin(b, 0x1C);
        hb_u1(b, 0x05);
        hb_id(b, FX_OBJECT_CLASS);
        hb_class_dump(b, FX_OBJECT_CLASS, 0, 0, 0, NULL, NULL);
        hb_end(b, r);
        r = hb_begin(b, 0x1C);
        hb_u1(b, 0x21);
        hb_id(b, 0x3000);
        hb_u4(b, 0);
        hb_id(b, FX_OBJECT_CLASS);
        hb_u4(b, 0);
        hb_prim_array(b, 0x3010, 10, 4, 4);
        hb_end(b, r);
        hb_end(b, hb_begin(b, 0x2C));
    }
}
