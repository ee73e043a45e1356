#include "cli/readers/threadnames.h"

#include <stdlib.h>
#include <string.h>

#include "cli/readers/classes.h"

typedef struct {
    const hp_index *ix;
    hp_classes classes;
    hp_idmap *names;  /* thread -> name (the result) */
    hp_idmap strings; /* String object -> thread */
    hp_idmap arrays;  /* value array -> String object */
    hp_idmap coders;  /* String object -> coder + 1 (0: no coder field, JDK 8) */
    int pass;
} ctx_t;

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | cp >> 18);
        out[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* Decodes a String's value array: Latin-1 bytes, UTF-16 bytes in the VM's
 * (little-endian) order, or big-endian HPROF char elements. */
static char *decode(const hp_sub *s, uint64_t coder)
{
    int wide = s->elem_type == HP_T_CHAR || coder == 2;
    uint64_t units = wide ? s->data_len / 2 : s->data_len;
    char *out = malloc(units * 4 + 1);
    size_t n = 0;
    if (!out) return NULL;
    for (uint64_t i = 0; i < units; i++) {
        const uint8_t *p = s->data + (wide ? 2 * i : i);
        uint32_t cu = !wide                       ? p[0]
                      : s->elem_type == HP_T_CHAR ? hp_be16(p)
                                                  : (uint32_t)(p[1] << 8 | p[0]);
        put_utf8(out, &n, cu >= 0xD800 && cu < 0xE000 ? 0xFFFD : cu);
    }
    out[n] = '\0';
    return out;
}

static int on_sub(void *vc, const hp_sub *s, hp_error *err)
{
    ctx_t *c = vc;
    uint8_t type;
    uint64_t v;
    if (c->pass == 0 && s->tag == HP_INSTANCE_DUMP && hp_idmap_get(c->names, s->id) &&
        hp_instance_field(&c->classes, c->ix, s, "name", &type, &v) && type == HP_T_OBJECT && v)
        return hp_idmap_put(&c->strings, v, s->id) < 0 ? hp_fail(err, s->offset, "out of memory")
                                                       : 0;
    if (c->pass == 1 && s->tag == HP_INSTANCE_DUMP && hp_idmap_get(&c->strings, s->id) &&
        hp_instance_field(&c->classes, c->ix, s, "value", &type, &v) && type == HP_T_OBJECT && v) {
        uint8_t ctype;
        uint64_t coder = 0;
        if (hp_instance_field(&c->classes, c->ix, s, "coder", &ctype, &coder)) coder++;
        if (hp_idmap_put(&c->arrays, v, s->id) < 0 || hp_idmap_put(&c->coders, s->id, coder) < 0)
            return hp_fail(err, s->offset, "out of memory");
    }
    if (c->pass == 2 && s->tag == HP_PRIM_ARRAY_DUMP) {
        const uint64_t *str = hp_idmap_get(&c->arrays, s->id);
        if (!str || (s->elem_type != HP_T_BYTE && s->elem_type != HP_T_CHAR)) return 0;
        uint64_t *thread = hp_idmap_get(c->names, *hp_idmap_get(&c->strings, *str));
        if (thread && *thread == 0)
            *thread = (uint64_t)(uintptr_t)decode(s, *hp_idmap_get(&c->coders, *str));
    }
    return 0;
}

int hp_thread_names(const hp_index *ix, size_t d, hp_idmap *names, hp_error *err)
{
    ctx_t c = {.ix = ix, .names = names};
    for (size_t i = 0; i < names->cap; i++)
        if (names->used[i]) names->vals[i] = 0;
    int rc = hp_classes_build(&c.classes, ix, d, err);
    for (c.pass = 0; rc == 0 && c.pass < 3; c.pass++)
        rc = hp_dump_walk(ix, d, on_sub, &c, err);
    hp_classes_free(&c.classes);
    hp_idmap_free(&c.strings);
    hp_idmap_free(&c.arrays);
    hp_idmap_free(&c.coders);
    return rc;
}

void hp_thread_names_free(hp_idmap *names)
{
    for (size_t i = 0; i < names->cap; i++)
        if (names->used[i]) free((void *)(uintptr_t)names->vals[i]);
    hp_idmap_free(names);
}
