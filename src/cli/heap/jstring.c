#include "cli/heap/jstring.h"

#include <stdlib.h>
#include <string.h>

long hp_jstring(const hp_graph *g, uint32_t obj, uint16_t *out, size_t max)
{
    char cls[32];
    hp_sub s, arr;
    uint8_t type, coder_type;
    uint64_t value, coder = 0;
    hp_graph_class_name(g, obj, cls, sizeof cls);
    if (strcmp(cls, "java.lang.String") != 0) return -1;
    hp_graph_object(g, obj, &s);
    if (!hp_instance_field(&g->classes, g->ix, &s, "value", &type, &value) || type != HP_T_OBJECT)
        return -1;
    hp_instance_field(&g->classes, g->ix, &s, "coder", &coder_type, &coder);
    uint32_t a = hp_objects_find(&g->obj, value);
    if (a == HP_NO_OBJECT) return -1;
    hp_graph_object(g, a, &arr);
    if (arr.tag != HP_PRIM_ARRAY_DUMP || (arr.elem_type != HP_T_CHAR && arr.elem_type != HP_T_BYTE))
        return -1;
    int utf16 = arr.elem_type == HP_T_CHAR || coder == 1;
    size_t n = utf16 ? arr.data_len / 2 : arr.data_len;
    for (size_t i = 0; i < n && i < max; i++) {
        const uint8_t *p = arr.data + (utf16 ? 2 * i : i);
        out[i] = !utf16                       ? p[0]
                 : arr.elem_type == HP_T_CHAR ? hp_be16(p)
                                              : (uint16_t)(p[0] | p[1] << 8);
    }
    return (long)n;
}

void hp_utf8(unsigned c, char u[4])
{
    memset(u, 0, 4);
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) {
        u[0] = (char)c;
    } else if (c < 0x800) {
        u[0] = (char)(0xc0 | c >> 6);
        u[1] = (char)(0x80 | (c & 0x3f));
    } else {
        u[0] = (char)(0xe0 | c >> 12);
        u[1] = (char)(0x80 | (c >> 6 & 0x3f));
        u[2] = (char)(0x80 | (c & 0x3f));
    }
}

int hp_jstring_print(FILE *out, const hp_graph *g, uint32_t obj, size_t max)
{
    uint16_t *units = malloc((max ? max : 1) * sizeof *units);
    long n = units ? hp_jstring(g, obj, units, max) : -1;
    if (n < 0) {
        free(units);
        return 0;
    }
    fputc('"', out);
    for (size_t i = 0; i < (size_t)n && i < max; i++) {
        char u[4];
        if (units[i] == '"' || units[i] == '\\')
            fprintf(out, "\\%c", units[i]);
        else if (units[i] < 0x20 || units[i] == 0x7f)
            fprintf(out, "\\u%04x", units[i]);
        else {
            hp_utf8(units[i], u);
            fputs(u, out);
        }
    }
    /* The mark of a cut string inside the quotes: the JSON stays valid. */
    fputs((size_t)n > max ? "...\"" : "\"", out);
    free(units);
    return 1;
}
