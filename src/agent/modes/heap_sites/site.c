#include "agent/modes/heap_sites/site.h"

#include "agent/tables/table.h"
#include "agent/tables/trace.h"

#include <string.h>

static struct hp_table *_Atomic sites;
static const struct hp_site_tags *_Atomic tags;

void hp_site_table_init(void)
{
    if (atomic_load(&sites) == NULL) atomic_store(&sites, hp_table_new(sizeof(struct hp_site)));
}

void hp_site_table_forget(void)
{
    atomic_store(&sites, NULL);
}

static void site_init(void *info, const void *key, size_t key_len, void *ctx)
{
    (void)key_len;
    (void)ctx;
    struct hp_site *s = info;
    uint32_t k[2];
    memcpy(k, key, sizeof k);
    s->class_serial = k[0];
    s->trace_serial = k[1];
    atomic_init(&s->alloc_objs, 0);
    atomic_init(&s->alloc_bytes, 0);
}

uint32_t hp_site_intern(uint32_t class_serial, uint32_t trace_serial)
{
    struct hp_table *t = atomic_load(&sites);
    if (t == NULL) return HP_SITE_NONE;
    uint32_t key[2] = {class_serial, trace_serial};
    /* Never create a site past what a tag can carry; an existing one is
     * still found. */
    if (hp_table_count(t) >= HP_SITE_MAX) return hp_table_find(t, key, sizeof key);
    uint32_t site = hp_table_intern(t, key, sizeof key, site_init, NULL, NULL);
    return site <= HP_SITE_MAX ? site : HP_SITE_NONE;
}

struct hp_site *hp_site_get(uint32_t site)
{
    struct hp_table *t = atomic_load(&sites);
    if (t == NULL || site == HP_SITE_NONE || site > HP_SITE_MAX) return NULL;
    return hp_table_info(t, site);
}

uint32_t hp_site_count(void)
{
    struct hp_table *t = atomic_load(&sites);
    if (t == NULL) return 0;
    uint32_t n = hp_table_count(t);
    return n < HP_SITE_MAX ? n : HP_SITE_MAX;
}

uint32_t hp_site_trace_serial(uint32_t site)
{
    const struct hp_site *s = hp_site_get(site);
    return s ? s->trace_serial : HP_TRACE_EMPTY;
}

uint32_t hp_site_class_serial(uint32_t site)
{
    const struct hp_site *s = hp_site_get(site);
    return s ? s->class_serial : 0;
}

void hp_site_tags_use(const struct hp_site_tags *t)
{
    atomic_store(&tags, t);
}

void hp_site_tags_resolve(jvmtiEnv *jvmti, JNIEnv *jni)
{
    const struct hp_site_tags *t = atomic_load(&tags);
    if (t) t->resolve(jvmti, jni);
}

uint32_t hp_site_of_tag(hp_objid_t tag)
{
    const struct hp_site_tags *t = atomic_load_explicit(&tags, memory_order_relaxed);
    uint32_t bits = hp_objid_site(tag);
    return t && bits ? t->site_of(bits) : bits;
}
