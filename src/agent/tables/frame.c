#include "frame.h"

#include "../core/agent.h"
#include "table.h"

static struct hp_table *frames;

struct frame_key {
    jmethodID method;
    jlocation loc;
};

void hp_frame_table_init(void)
{
    frames = hp_table_new(sizeof(struct hp_frame));
}

static void init_frame(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key_len;
    const struct frame_key *k = key;
    struct hp_frame *f = info;
    f->method = ctx;
    f->line = hp_method_line(f->method, k->loc);
    if (!hp.opt.lineno && f->line != -3) f->line = -1;
    atomic_init(&f->emitted, false);
}

uint32_t hp_frame_intern(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, jlocation loc)
{
    struct frame_key key = {method, loc};
    uint32_t id = hp_table_find(frames, &key, sizeof key);
    if (id) return id;
    const struct hp_method *m = hp_method_get(jvmti, jni, method);
    return hp_table_intern(frames, &key, sizeof key, init_frame, (void *)m, NULL);
}

const struct hp_frame *hp_frame_get(uint32_t id)
{
    return hp_table_info(frames, id);
}

bool hp_frame_claim(uint32_t id)
{
    struct hp_frame *f = hp_table_info(frames, id);
    return f && !atomic_exchange(&f->emitted, true);
}
