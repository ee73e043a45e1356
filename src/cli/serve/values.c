#include "cli/serve/values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap/jstring.h"

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

int hp_web_string(hp_html *out, const hp_web *w, uint32_t obj, size_t max)
{
    uint16_t *units = malloc((max ? max : 1) * sizeof *units);
    long n = units ? hp_jstring(&w->h.g, obj, units, max) : -1;
    if (n < 0) {
        free(units);
        return 0;
    }
    hp_html_raw(out, "&quot;");
    for (size_t i = 0; i < (size_t)n && i < max; i++) {
        char u[4];
        hp_utf8(units[i], u);
        if (units[i] == 0)
            hp_html_raw(out, "\\0");
        else
            hp_html_text(out, u);
    }
    hp_html_raw(out, (size_t)n > max ? "&quot;&hellip;" : "&quot;");
    free(units);
    return 1;
}
