/* heap=dump (reference 3.8, 4.3, 7.2). Each dump: a full GC, so that the
 * dump holds live objects as the JVM's own GC.heap_dump does; the classes and
 * threads as they are now; then one FollowReferences walk streamed to the
 * output; then a CLASS DUMP for every class. */
#include "agent/core/mode.h"
#include "agent/core/agent.h"
#include "agent/core/error.h"
#include "agent/core/gc.h"
#include "agent/io/writer.h"
#include "agent/modes/heap_dump/heap_dump_encoder.h"
#include "agent/modes/heap_dump/hotspot.h"
#include "agent/modes/heap_dump/threads.h"
#include "agent/modes/heap_dump/walk.h"
#include "agent/modes/heap_sites/site.h"
#include "agent/output/encoder.h"
#include "agent/tables/trace.h"

#include <inttypes.h>
#include <stdio.h>

static bool on_load(struct hp_setup *s)
{
    if (!s->potential.can_tag_objects) {
        hp_error("heap=dump needs the JVM TI can_tag_objects capability");
        return false;
    }
    s->wanted->can_tag_objects = 1;
    return true;
}

/* Superclasses first, each class once, as the original listed them. */
static void dump_class(struct hd_walk *w, struct hd_class *c)
{
    if (c == NULL || c->dumped) return;
    c->dumped = true;
    dump_class(w, c->super_cls);
    w->enc->class_dump(w->s, c);
}

/* Milliseconds spent in each step, for logflags. */
struct steps {
    uint64_t start, gc, prepared, walked, done;
};

static void report(const struct hd_walk *w, const struct hd_stream *s, const struct steps *t)
{
    /* A note: like objects allocated after the walk began, objects of
     * classes loaded after the class list was read are past the snapshot;
     * the dump stays consistent without them. */
    if (w->skipped)
        hp_note("heap dump: %" PRIu64 " objects of classes loaded during the dump are not in it",
                w->skipped);
    if (w->truncated)
        hp_error("heap dump: %" PRIu64 " arrays too large for a record were truncated",
                 w->truncated);
    if (w->mismatched)
        hp_error("heap dump: %" PRIu64 " field values matched no field of their class (JVM TI "
                 "field indices differ from the class layout); written as zero",
                 w->mismatched);
    if (w->oom) hp_error("heap dump: out of memory, %" PRIu64 " values lost", w->oom);
    if (hp.opt.logflags)
        fprintf(stderr,
                "HPROF LOG: heap dump: %" PRIu64 " objects, %u classes, %" PRIu64
                " bytes; agent memory: %u KiB buffers, %zu KiB array lengths, %zu KiB classes;"
                " ms: GC %" PRIu64 ", classes and threads %" PRIu64 ", walk %" PRIu64
                ", class dumps %" PRIu64 "\n",
                w->objects, w->cs->n, s->bytes, HD_CHUNKS * (HD_CHUNK_SIZE >> 10),
                hd_map_bytes(&w->arrays) >> 10,
                (w->cs->n * sizeof *w->cs->v + hd_map_bytes(&w->cs->by_obj)) >> 10,
                (t->gc - t->start) / 1000000, (t->prepared - t->gc) / 1000000,
                (t->walked - t->prepared) / 1000000, (t->done - t->walked) / 1000000);
}

static void dump(jvmtiEnv *jvmti, JNIEnv *jni)
{
    /* The JVM's dumper has no allocation traces (heap=all) and no ascii. */
    if (hp_output_binary() && !hp.opt.heap_sites && hd_hotspot_dump(jni)) return;
    const struct hp_heap_dump_encoder *enc =
        hp_output_binary() ? &hp_heap_dump_binary : &hp_heap_dump_ascii;
    struct steps t = {.start = hp_mono_ns()};
    hp_gc_for_dump(jvmti);
    t.gc = hp_mono_ns();
    struct hd_classes cs;
    if (!hd_classes_load(&cs, jvmti, jni)) return;
    for (uint32_t i = 0; i < cs.n; i++)
        enc->prepare_class(&cs.v[i]);
    struct hd_map threads;
    hd_threads_load(&threads, jvmti, jni);
    /* Every trace an object can cite is written before the dump. */
    hp_site_tags_resolve(jvmti, jni);
    hp_trace_write_unwritten();
    struct hd_stream_io io;
    enc->stream_io(&io);
    struct hd_stream s;
    if (hd_stream_start(&s, &io)) {
        struct hd_walk w = {.enc = enc, .s = &s, .cs = &cs, .threads = &threads};
        t.prepared = hp_mono_ns();
        hd_walk_run(&w, jvmti);
        t.walked = hp_mono_ns();
        for (uint32_t i = 0; i < cs.n; i++)
            dump_class(&w, &cs.v[i]);
        hd_stream_end(&s);
        t.done = hp_mono_ns();
        report(&w, &s, &t);
        hd_walk_free(&w);
    } else {
        /* Close the section (and release what stream_io opened). */
        hp_out_lock();
        io.finish(io.ctx);
        hp_out_unlock();
    }
    hd_map_free(&threads);
    hd_classes_free(&cs);
}

static bool selected(const struct hp_options *o)
{
    return o->heap_dump;
}

const struct hp_mode hp_mode_heap_dump = {
    .option = "heap=dump",
    .selected = selected,
    .writes_heap_dump = true,
    .dump_message = " Java heap ...",
    .on_load = on_load,
    .dump = dump,
};
