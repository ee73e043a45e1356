#include "cli/heap/paths.h"

#include "cli/heap/bigarray.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hp_paths_build(hp_paths *p, const hp_graph *g, int exclude_weak, hp_error *err)
{
    p->n = g->obj.n;
    p->parent = hp_big_malloc(((size_t)g->obj.n + 1) * sizeof *p->parent);
    uint32_t *queue = hp_big_malloc(((size_t)g->obj.n + 1) * sizeof *queue), head = 0, tail = 0;
    if (!p->parent || !queue) {
        free(queue);
        hp_paths_free(p);
        return hp_fail(err, 0, "out of memory");
    }
    memset(p->parent, 0xff, (size_t)g->obj.n * sizeof *p->parent);
    for (size_t r = 0; r < g->nroots; r++) {
        uint32_t o = g->roots[r].object;
        if (p->parent[o] != HP_NO_OBJECT) continue;
        p->parent[o] = o;
        queue[tail++] = o;
    }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = g->out_start[v]; e < g->out_start[v + 1]; e++) {
            uint32_t t = HP_EDGE_TARGET(g->out[e]);
            if ((exclude_weak && (g->out[e] & HP_WEAK_EDGE)) || p->parent[t] != HP_NO_OBJECT)
                continue;
            p->parent[t] = v;
            queue[tail++] = t;
        }
    }
    free(queue);
    return 0;
}

void hp_paths_free(hp_paths *p)
{
    free(p->parent);
    p->parent = NULL;
}

size_t hp_paths_chain(const hp_paths *p, uint32_t obj, uint32_t **chain)
{
    *chain = NULL;
    /* A root is its own parent; a chain that leaves the objects or runs
     * longer than there are objects (a damaged index) is no path. */
    size_t len = 1;
    uint32_t v = obj;
    for (; v < p->n && p->parent[v] != v && len <= p->n; v = p->parent[v])
        len++;
    if (v >= p->n || len > p->n) return 0;
    *chain = malloc(len * sizeof **chain);
    if (!*chain) return 0;
    v = obj;
    for (size_t i = len; i > 0; v = p->parent[v])
        (*chain)[--i] = v;
    return len;
}

static int field_is(const hp_graph *g, const hp_field *fl, const uint8_t *val, uint64_t id,
                    char *buf, size_t cap, const char *prefix)
{
    const hp_file *f = g->ix->f;
    if (fl->type != HP_T_OBJECT || hp_id(f, val) != id) return 0;
    char name[256];
    hp_index_cstring(g->ix, fl->name_id, name, sizeof name, "?");
    snprintf(buf, cap, "%s%s", prefix, name);
    return 1;
}

void hp_graph_edge_name(const hp_graph *g, uint32_t from, uint32_t to, char *buf, size_t cap)
{
    const hp_file *f = g->ix->f;
    uint64_t id = hp_objects_id(&g->obj, to);
    hp_sub s;
    hp_graph_object(g, from, &s);
    snprintf(buf, cap, "?");
    if (s.tag == HP_OBJ_ARRAY_DUMP) {
        for (uint32_t i = 0; i < s.count; i++)
            if (hp_id(f, s.data + (uint64_t)i * f->id_size) == id) {
                snprintf(buf, cap, "[%" PRIu32 "]", i);
                return;
            }
    } else if (s.tag == HP_CLASS_DUMP) {
        const uint8_t *p = s.statics;
        for (unsigned i = 0; i < s.nstatics; i++) {
            const uint8_t *val = p + f->id_size + 1;
            hp_field fl;
            hp_next_static(f, &p, &fl);
            if (field_is(g, &fl, val, id, buf, cap, "static ")) return;
        }
    } else if (s.tag == HP_INSTANCE_DUMP) {
        const hp_class *k = hp_classes_get(&g->classes, s.ref);
        if (!k || hp_class_field_bytes(k, f->id_size) != s.data_len) return;
        const uint8_t *val = s.data;
        for (size_t steps = 0; k && steps <= g->classes.n; steps++) {
            const uint8_t *p = k->fields;
            for (unsigned i = 0; i < k->nfields; i++) {
                hp_field fl;
                hp_next_field(f, &p, &fl);
                if (field_is(g, &fl, val, id, buf, cap, "")) return;
                val += hp_type_size(fl.type, f->id_size);
            }
            k = k->super ? hp_classes_get(&g->classes, k->super) : NULL;
        }
    }
}

void hp_graph_root_kinds(const hp_graph *g, uint32_t obj, char *buf, size_t cap)
{
    size_t len = 0;
    uint8_t seen[256] = {0};
    buf[0] = '\0';
    for (size_t r = 0; r < g->nroots; r++) {
        const hp_root *root = &g->roots[r];
        if (root->object != obj || seen[root->kind]++) continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", hp_sub_name(root->kind));
        if (n < 0 || (size_t)n >= cap - len) return;
        len += (size_t)n;
    }
}

void hp_graph_describe(const hp_graph *g, uint32_t obj, char *buf, size_t cap)
{
    hp_sub s;
    hp_graph_object(g, obj, &s);
    if (s.tag != HP_CLASS_DUMP) {
        hp_graph_class_name(g, obj, buf, cap);
        return;
    }
    char name[480];
    hp_index_class_name(g->ix, s.id, name, sizeof name);
    snprintf(buf, cap, "class %s", name);
}
