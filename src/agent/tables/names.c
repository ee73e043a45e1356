#include "agent/tables/names.h"

#include "format/hprof_format.h"

#include <stdlib.h>
#include <string.h>

/* A primitive descriptor's Java keyword; "void" too (method return types). */
static const char *primitive_name(char c)
{
    return c == 'V' ? "void" : hp_descriptor_keyword(c);
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
