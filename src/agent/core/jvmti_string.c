#include "agent/core/jvmti_string.h"

#include <stdlib.h>
#include <string.h>

char *hp_take_jvmti_string(jvmtiEnv *jvmti, char *s)
{
    if (s == NULL) return NULL;
    char *copy = strdup(s);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    return copy;
}
