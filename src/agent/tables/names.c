#include "agent/tables/names.h"

#include <stdlib.h>
#include <string.h>

static const char *primitive_name(char c)
{
    switch (c) {
    case 'Z':
        return "boolean";
    case 'B':
        return "byte";
    case 'C':
        return "char";
    case 'S':
        return "short";
    case 'I':
        return "int";
    case 'J':
        return "long";
    case 'F':
        return "float";
    case 'D':
        return "double";
    case 'V':
        return "void";
    default:
        return NULL;
    }
}

char *hp_sig_to_name(const char *sig)
{
    size_t dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *base = sig + dims;
    size_t base_len;
    const char *prim = NULL;
    if (*base == 'L') {
        base++;
        base_len = strcspn(base, ";");
    } else if ((prim = primitive_name(*base)) != NULL && base[1] == '\0') {
        base = prim;
        base_len = strlen(prim);
    } else {
        base_len = strlen(base); /* not a signature: keep it as it is */
    }
    char *out = malloc(base_len + 2 * dims + 1);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < base_len; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims; i++)
        memcpy(out + base_len + 2 * i, "[]", 2);
    out[base_len + 2 * dims] = '\0';
    return out;
}

int hp_basic_type(char c)
{
    switch (c) {
    case 'L':
    case '[':
        return 2;
    case 'Z':
        return 4;
    case 'C':
        return 5;
    case 'F':
        return 6;
    case 'D':
        return 7;
    case 'B':
        return 8;
    case 'S':
        return 9;
    case 'I':
        return 10;
    case 'J':
        return 11;
    default:
        return 0;
    }
}

int hp_basic_type_size(int type, int id_size)
{
    switch (type) {
    case 2:
        return id_size;
    case 4:
    case 8:
        return 1;
    case 5:
    case 9:
        return 2;
    case 6:
    case 10:
        return 4;
    case 7:
    case 11:
        return 8;
    default:
        return 0;
    }
}
