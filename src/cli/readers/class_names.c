#include "cli/readers/class_names.h"

#include <string.h>

/* Appends s to out at *n, keeping room for the terminating NUL. */
static void put(char *out, size_t cap, size_t *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len && *n + 1 < cap; i++)
        out[(*n)++] = s[i];
}

void hp_java_class_name(const uint8_t *name, size_t len, char *out, size_t cap)
{
    size_t n = 0, dims = 0;
    if (cap == 0) return;
    while (dims < len && name[dims] == '[')
        dims++;
    const uint8_t *elem = name + dims;
    size_t elen = len - dims;
    const char *kw = NULL;
    if (dims > 0 && elen == 1 && (kw = hp_descriptor_keyword((char)elem[0])) != NULL) {
        put(out, cap, &n, kw, strlen(kw));
    } else {
        if (dims > 0 && elen >= 2 && elem[0] == 'L' && elem[elen - 1] == ';') {
            elem++;
            elen -= 2;
        }
        for (size_t i = 0; i < elen && n + 1 < cap; i++)
            out[n++] = elem[i] == '/' ? '.' : (char)elem[i];
    }
    for (size_t i = 0; i < dims; i++)
        put(out, cap, &n, "[]", 2);
    out[n] = '\0';
}
