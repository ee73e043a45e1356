/* heap=dump in ascii (reference 3.8): ROOT, OBJ, ARR and CLS records between
 * HEAP DUMP BEGIN and HEAP DUMP END. The BEGIN line carries the object and
 * byte totals, known only after the walk, so the body is spooled to a
 * temporary file and copied into the output behind it. */
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/io/writer.h"
#include "agent/modes/heap_dump/heap_dump_encoder.h"
#include "agent/tables/trace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Per dump; dumps never overlap. */
static struct {
    FILE *spool;
    bool failed;
    uint64_t objects, bytes;
} dump;

static void put(struct hd_stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct hd_stream *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) {
        /* Only an overlong class or field name gets here. */
        char *big = malloc((size_t)n + 1);
        if (big == NULL) return;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        hd_put(s, big, (size_t)n);
        free(big);
        return;
    }
    hd_put(s, line, (size_t)n);
}

static void prepare_class(struct hd_class *c)
{
    (void)c;
}

static void spool_write(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    if (dump.spool && !dump.failed && fwrite(p, 1, n, dump.spool) != n) dump.failed = true;
}

/* Copies the spool into the output in whole lines. */
static void copy_spool(void)
{
    enum { BUF = 1 << 20 };
    char *buf = malloc(BUF);
    if (buf == NULL) return;
    rewind(dump.spool);
    size_t have = 0, got;
    while ((got = fread(buf + have, 1, BUF - have, dump.spool)) > 0) {
        have += got;
        size_t cut = have;
        while (cut > 0 && buf[cut - 1] != '\n')
            cut--;
        if (cut == 0) cut = have; /* a single line longer than the buffer */
        hp_out_write(buf, cut);
        memmove(buf, buf + cut, have - cut);
        have -= cut;
    }
    if (have) hp_out_write(buf, have);
    free(buf);
}

static void finish(void *ctx)
{
    (void)ctx;
    /* Threads that kept allocating while the heap was walked made traces
     * that walked objects cite: they go before the section too. */
    hp_trace_write_unwritten();
    char date[32];
    hp_ctime(date);
    hp_out_printf("HEAP DUMP BEGIN (%" PRIu64 " objects, %" PRIu64 " bytes) %s", dump.objects,
                  dump.bytes, date);
    if (dump.failed) hp_error("heap dump lost: cannot write its temporary file");
    if (dump.spool) {
        if (!dump.failed) copy_spool();
        fclose(dump.spool);
    }
    hp_out_printf("HEAP DUMP END\n");
    dump.spool = NULL;
}

static void stream_io(struct hd_stream_io *io)
{
    dump.spool = tmpfile();
    dump.failed = dump.spool == NULL;
    if (dump.failed) hp_error("cannot create the heap dump's temporary file");
    dump.objects = dump.bytes = 0;
    *io = (struct hd_stream_io){0, NULL, spool_write, finish, NULL};
}

static void root(struct hd_stream *s, const struct hd_root *r)
{
    switch (r->kind) {
    case HD_ROOT_JNI_GLOBAL:
        put(s, "ROOT %" PRIx64 " (kind=<JNI global ref>, id=%x, trace=%u)\n", r->obj, r->aux,
            r->trace);
        break;
    case HD_ROOT_JNI_LOCAL:
        put(s, "ROOT %" PRIx64 " (kind=<JNI local ref>, thread=%u, frame=%d)\n", r->obj, r->thread,
            r->depth);
        break;
    case HD_ROOT_JAVA_FRAME:
        put(s, "ROOT %" PRIx64 " (kind=<Java stack>, thread=%u, frame=%d)\n", r->obj, r->thread,
            r->depth);
        break;
    case HD_ROOT_STICKY_CLASS:
        put(s, "ROOT %" PRIx64 " (kind=<system class>, name=%s)\n", r->obj,
            r->name ? r->name : "Unknown");
        break;
    case HD_ROOT_MONITOR:
        put(s, "ROOT %" PRIx64 " (kind=<busy monitor>)\n", r->obj);
        break;
    case HD_ROOT_THREAD:
        put(s, "ROOT %" PRIx64 " (kind=<thread>, id=%u, trace=%u)\n", r->obj, r->thread, r->trace);
        if (r->obj)
            put(s, "ROOT %" PRIx64 " (kind=<thread block>, thread=%u)\n", r->obj, r->thread);
        break;
    default:
        put(s, "ROOT %" PRIx64 " (kind=<unknown>)\n", r->obj);
        break;
    }
}

/* "\t<name>\t<id>", with a second tab for names shorter than 8. */
static void field_line(struct hd_stream *s, const char *name, hp_objid_t id)
{
    const char *n = name ? name : "?";
    put(s, "\t%s\t%s%" PRIx64 "\n", n, strlen(n) < 8 ? "\t" : "", id);
}

/* Object fields of class k and its superclasses, superclasses first; the
 * values of k's own fields start at slot `base`. */
static void object_fields(struct hd_stream *s, const struct hd_class *k, const jvalue *values,
                          uint32_t base)
{
    if (k == NULL) return;
    object_fields(s, k->super_cls, values, base + k->n_inst);
    for (uint32_t i = 0; i < k->n_inst; i++)
        if (k->inst[i].type == 'L' && values[base + i].j != 0)
            field_line(s, k->inst[i].name, (hp_objid_t)values[base + i].j);
}

static void instance(struct hd_stream *s, hp_objid_t obj, uint32_t trace, const struct hd_class *c,
                     const jvalue *values)
{
    dump.objects++;
    dump.bytes += c->inst_size;
    put(s, "OBJ %" PRIx64 " (sz=%" PRIu64 ", trace=%u, class=%s@%" PRIx64 ")\n", obj, c->inst_size,
        trace, c->name, c->obj);
    object_fields(s, c, values, 0);
}

static uint32_t obj_array_begin(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                                const struct hd_class *c, uint32_t length)
{
    dump.objects++;
    dump.bytes += size;
    put(s, "ARR %" PRIx64 " (sz=%" PRIu64 ", trace=%u, nelems=%u, elem type=%s@%" PRIx64 ")\n", obj,
        size, trace, length, c->name, c->obj);
    return length;
}

static void obj_array_elem(struct hd_stream *s, uint32_t index, hp_objid_t elem)
{
    put(s, "\t[%u]\t\t%" PRIx64 "\n", index, elem);
}

static void obj_array_end(struct hd_stream *s)
{
    (void)s;
}

static uint32_t prim_array(struct hd_stream *s, hp_objid_t obj, uint32_t trace, uint64_t size,
                           const struct hd_class *c, uint32_t count, const void *elems)
{
    (void)elems;
    dump.objects++;
    dump.bytes += size;
    put(s, "ARR %" PRIx64 " (sz=%" PRIu64 ", trace=%u, nelems=%u, elem type=%s)\n", obj, size,
        trace, count, c->name);
    return count;
}

static void class_dump(struct hd_stream *s, const struct hd_class *c)
{
    put(s, "CLS %" PRIx64 " (name=%s, trace=%u)\n", c->obj, c->name, HP_TRACE_EMPTY);
    if (c->super) put(s, "\tsuper\t\t%" PRIx64 "\n", c->super);
    if (c->loader) put(s, "\tloader\t\t%" PRIx64 "\n", c->loader);
    if (c->signers) put(s, "\tsigners\t\t%" PRIx64 "\n", c->signers);
    if (c->domain) put(s, "\tdomain\t\t%" PRIx64 "\n", c->domain);
    for (uint32_t i = 0; i < c->n_stat; i++)
        if (c->stat[i].type == 'L' && c->stat_val[i].j != 0)
            put(s, "\tstatic %s\t%" PRIx64 "\n", c->stat[i].name ? c->stat[i].name : "?",
                (hp_objid_t)c->stat_val[i].j);
    for (uint32_t i = 0; i < c->n_cp; i++)
        put(s, "\tconstant pool entry %u\t%" PRIx64 "\n", c->cp[i].index, c->cp[i].value);
}

const struct hp_heap_dump_encoder hp_heap_dump_ascii = {
    prepare_class,  stream_io,     root,       instance,   obj_array_begin,
    obj_array_elem, obj_array_end, prim_array, class_dump,
};
