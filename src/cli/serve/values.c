#include "serve/values.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void hp_format_prim(uint8_t type, uint64_t raw, char *buf, size_t cap)
{
    union {
        uint32_t u;
        float f;
    } f32 = {(uint32_t)raw};
    union {
        uint64_t u;
        double d;
    } f64 = {raw};
    switch (type) {
    case HP_T_BOOLEAN:
        snprintf(buf, cap, "%s", raw ? "true" : "false");
        break;
    case HP_T_CHAR:
        snprintf(buf, cap, "'\\u%04" PRIx64 "'", raw & 0xffff);
        break;
    case HP_T_FLOAT:
        snprintf(buf, cap, "%g", (double)f32.f);
        break;
    case HP_T_DOUBLE:
        snprintf(buf, cap, "%g", f64.d);
        break;
    case HP_T_BYTE:
        snprintf(buf, cap, "%d", (int8_t)raw);
        break;
    case HP_T_SHORT:
        snprintf(buf, cap, "%d", (int16_t)raw);
        break;
    case HP_T_INT:
        snprintf(buf, cap, "%" PRId32, (int32_t)raw);
        break;
    default:
        snprintf(buf, cap, "%" PRId64, (int64_t)raw);
    }
}

void hp_web_value(hp_html *out, const hp_web *w, uint8_t type, uint64_t raw)
{
    char buf[64];
    if (type != HP_T_OBJECT) {
        hp_format_prim(type, raw, buf, sizeof buf);
        hp_html_text(out, buf);
        return;
    }
    uint32_t obj = raw ? hp_objects_find(&w->h.g.obj, raw) : HP_NO_OBJECT;
    if (obj != HP_NO_OBJECT)
        hp_web_object_link(out, w, obj);
    else if (raw)
        hp_html_fmt(out, "0x%" PRIx64 " (not in the dump)", raw);
    else
        hp_html_raw(out, "null");
}

/* Appends one UTF-16 code unit as UTF-8 (surrogates shown as U+FFFD). */
static void put_char(hp_html *out, unsigned c)
{
    char u[5] = {0};
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
    if (c == 0) {
        hp_html_raw(out, "\\0");
        return;
    }
    hp_html_text(out, u);
}

int hp_web_string(hp_html *out, const hp_web *w, uint32_t obj, size_t max)
{
    const hp_graph *g = &w->h.g;
    char cls[64];
    hp_sub s, arr;
    uint8_t type, coder_type;
    uint64_t value, coder = 0;
    hp_graph_class_name(g, obj, cls, sizeof cls);
    if (strcmp(cls, "java.lang.String") != 0) return 0;
    hp_graph_object(g, obj, &s);
    if (!hp_instance_field(&g->classes, g->ix, &s, "value", &type, &value) || type != HP_T_OBJECT)
        return 0;
    hp_instance_field(&g->classes, g->ix, &s, "coder", &coder_type, &coder);
    uint32_t a = hp_objects_find(&g->obj, value);
    if (a == HP_NO_OBJECT) return 0;
    hp_graph_object(g, a, &arr);
    if (arr.tag != HP_PRIM_ARRAY_DUMP) return 0;
    /* JDK 9+: byte[] in Latin-1 (coder 0) or UTF-16 in the VM's byte order
     * (coder 1, little-endian on x86 and arm64); JDK 8: char[]. */
    int utf16 = arr.elem_type == HP_T_CHAR || coder == 1;
    size_t n = utf16 ? arr.data_len / 2 : arr.data_len;
    if (arr.elem_type != HP_T_CHAR && arr.elem_type != HP_T_BYTE) return 0;
    hp_html_raw(out, "&quot;");
    for (size_t i = 0; i < n && i < max; i++) {
        const uint8_t *p = arr.data + (utf16 ? 2 * i : i);
        unsigned c = !utf16 ? p[0] : arr.elem_type == HP_T_CHAR ? hp_be16(p) : p[0] | p[1] << 8;
        put_char(out, c);
    }
    hp_html_raw(out, n > max ? "&quot;&hellip;" : "&quot;");
    return 1;
}
