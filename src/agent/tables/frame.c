#include "agent/tables/frame.h"

#include "agent/core/agent.h"
#include "agent/tables/table.h"

#include <string.h>

static struct hp_table *frames;

struct frame_key {
    jmethodID method;
    jlocation loc;
};

void hp_frame_table_init(void)
{
    frames = hp_table_new(sizeof(struct hp_frame));
}

/* Frames at a line are keyed by the method's entry and the line, packed
 * into 12 bytes: the other key length keeps them apart from frame_key. */
#define LINE_KEY_LEN (sizeof(const struct hp_method *) + sizeof(int32_t))

static void init_line(struct hp_frame *f, const struct hp_method *m, int32_t line)
{
    f->method = m;
    f->line = !hp.opt.lineno && line != -3 ? -1 : line;
    atomic_init(&f->emitted, false);
}

static void init_frame(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key_len;
    const struct frame_key *k = key;
    init_line(info, ctx, hp_method_line(ctx, k->loc));
}

static void init_frame_at_line(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key_len, (void)ctx;
    const struct hp_method *m;
    int32_t line;
    memcpy(&m, key, sizeof m);
    memcpy(&line, (const unsigned char *)key + sizeof m, sizeof line);
    init_line(info, m, line);
}

uint32_t hp_frame_intern_line(const struct hp_method *m, int32_t line)
{
    unsigned char key[LINE_KEY_LEN];
    memcpy(key, &m, sizeof m);
    memcpy(key + sizeof m, &line, sizeof line);
    return hp_table_intern(frames, key, sizeof key, init_frame_at_line, NULL, NULL);
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
