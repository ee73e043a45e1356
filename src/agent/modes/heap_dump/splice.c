#include "agent/modes/heap_dump/splice.h"

#include "agent/io/writer.h"
#include "agent/modes/heap_dump/splice_state.h"
#include "agent/tables/names.h"
#include "agent/tables/objid.h"

#include <stdlib.h>
#include <string.h>

/* Numbers given to the JVM's serials and frame IDs, above the agent's own
 * (classes from 100000, threads 200000, traces 300000, frames 1...), and
 * never reused in a run: each dump starts where the previous one ended. */
struct hd_sp_ids hd_sp_ids = {0x40000000u, 0x40000000u, 0x40000000u, (uint64_t)1 << 32, false};

static bool header(struct sp *s)
{
    const size_t id_size_at = sizeof HP_VERSION_1_0_2; /* after the NUL */
    if (!hd_sp_fill(s, HP_HEADER_SIZE)) return false;
    if (memcmp(s->buf, HP_VERSION_1_0_2, sizeof HP_VERSION_1_0_2) != 0)
        return hd_sp_fail(s, "the JVM's dump is not HPROF 1.0.2");
    if (hp_be32(s->buf + id_size_at) != HP_ID_SIZE)
        return hd_sp_fail(s, "the JVM's dump has %u-byte IDs", hp_be32(s->buf + id_size_at));
    s->head = s->emitted = HP_HEADER_SIZE;
    return true;
}

static bool run_pass(struct sp *s)
{
    s->head = s->len = s->emitted = 0;
    s->buf_off = 0;
    if (!header(s)) return false;
    if (s->emit) {
        hp_out_lock();
        s->locked = true;
        s->out_at_emitted = hp_out_offset();
    }
    for (;;) {
        if (!hd_sp_fill(s, HP_RECORD_HEADER_SIZE)) return false;
        uint8_t tag = s->buf[s->head];
        uint32_t len = hp_be32(s->buf + s->head + 5);
        if (tag == HP_HEAP_DUMP_SEGMENT) {
            if (s->emit && s->seg_start == 0) s->seg_start = out_offset(s, s->head);
            s->head += HP_RECORD_HEADER_SIZE;
            if (!hd_sp_segment(s, len)) return false;
        } else if (tag == HP_HEAP_DUMP_END) {
            if (len != 0 || (s->emit && s->seg_start == 0))
                return hd_sp_fail(s, "misplaced HEAP DUMP END in the JVM's dump");
            s->head += HP_RECORD_HEADER_SIZE;
            s->dump_end = s->buf_off + s->head;
            hd_sp_flush_parsed(s);
            return true;
        } else {
            if (!hd_sp_fill(s, HP_RECORD_HEADER_SIZE + (size_t)len)) return false;
            hd_sp_flush_parsed(s);
            uint8_t *b = s->buf + s->head + HP_RECORD_HEADER_SIZE;
            s->head += HP_RECORD_HEADER_SIZE + (size_t)len;
            s->emitted = s->head;
            if (!hd_sp_record(s, tag, b, len)) return false;
            if (s->emit) s->out_at_emitted = hp_out_offset();
        }
    }
}

static size_t memory(const struct sp *s)
{
    return BUF_SIZE + s->n_blocks * BLOCK_BYTES + hd_map_bytes(&s->blocks) +
           hd_map_bytes(&s->utf8) + hd_map_bytes(&s->texts) + s->arena_cap +
           s->cap_fixes * sizeof *s->fixes + (s->refs ? MAX_REFS * sizeof *s->refs : 0) +
           s->cap_patches * sizeof *s->patches;
}

/* The next dump's numbers start above this one's. */
static void advance_ids(const struct sp *s)
{
    hd_sp_ids.class_base += s->max_class + 1;
    hd_sp_ids.thread_base += s->max_thread + 1;
    hd_sp_ids.trace_base += s->max_trace + 1;
    hd_sp_ids.frame_base += s->max_frame + 1;
}

/* The JVM's file as the output (see splice.h). */
static enum hd_splice_result in_place(struct sp *s)
{
    struct hd_splice *pub = s->pub;
    s->scan = s->defer = s->inplace = true;
    s->min_object = UINT64_MAX;
    s->names_floor = hp_bin_strings_issued() + NAMES_HEADROOM;
    bool ok = run_pass(s);
    while (atomic_load(&pub->jvm) == HD_JVM_WRITING)
        hd_sp_pause();
    if (ok && atomic_load(&pub->jvm) == HD_JVM_FAILED)
        ok = hd_sp_fail(s, "the JVM's dumper failed");
    /* Object IDs are addresses there, a sequence here: all of theirs must
     * lie above all of ours (see README). */
    if (ok && s->min_object <= hp_objid_issued())
        s->refused = true, pub->refusal = "an object ID as low as ours";
    if (s->refused) return HD_SPLICE_NOTHING;
    ok = ok && hd_sp_apply_patches(s) && hd_sp_apply_fixes(s) &&
         (hp_out_adopt(pub->fd, pub->path, HP_HEADER_SIZE, s->dump_end, &pub->moved) ||
          hd_sp_fail(s, "cannot add the JVM's dump to the output"));
    pub->memory = memory(s);
    if (!ok) return HD_SPLICE_NOTHING;
    advance_ids(s);
    hd_sp_ids.dummy_written = true;
    pub->adopted = true;
    pub->out_bytes = s->dump_end - HP_HEADER_SIZE;
    return HD_SPLICE_OK;
}

static enum hd_splice_result run_splice(struct sp *s)
{
    struct hd_splice *pub = s->pub;
    bool ok;
    if (pub->overlap) {
        s->emit = s->scan = s->defer = true;
        s->punching = pub->punch_lag > 0;
        ok = run_pass(s);
        /* The JVM's verdict counts even when its file looked complete. */
        while (ok && atomic_load(&pub->jvm) == HD_JVM_WRITING)
            hd_sp_pause();
        if (ok && atomic_load(&pub->jvm) == HD_JVM_FAILED)
            ok = hd_sp_fail(s, "the JVM's dumper failed");
        ok = ok && hd_sp_apply_fixes(s);
    } else {
        while (atomic_load(&pub->jvm) == HD_JVM_WRITING)
            hd_sp_pause();
        s->scan = true;
        ok = run_pass(s);
        s->scan = false;
        s->emit = true;
        ok = ok && run_pass(s);
    }
    pub->memory = memory(s);
    enum hd_splice_result res = HD_SPLICE_OK;
    if (s->locked) {
        if (ok) {
            pub->out_bytes = hp_out_offset() - s->seg_start;
        } else if (s->seg_start) {
            res = hp_out_truncate(s->seg_start) ? HD_SPLICE_NOTHING : HD_SPLICE_BROKEN;
        }
        advance_ids(s);
        hp_out_unlock();
    }
    return ok ? res : res == HD_SPLICE_OK ? HD_SPLICE_NOTHING : res;
}

/* One attempt, in place or as a copy. *refused: in place was not possible,
 * the JVM's file is unchanged. */
static enum hd_splice_result attempt(struct hd_splice *sp, bool inplace, bool *refused)
{
    struct sp s = {.pub = sp};
    sp->error[0] = '\0';
    sp->in_bytes = sp->out_bytes = sp->objects = sp->nulled = sp->punched = 0;
    sp->adopted = sp->moved = false;
    if (inplace) sp->refusal = NULL;
    hd_map_init(&s.blocks);
    hd_map_init(&s.utf8);
    hd_map_init(&s.texts);
    s.buf = malloc(BUF_SIZE);
    enum hd_splice_result res = HD_SPLICE_NOTHING;
    if (s.buf == NULL)
        hd_sp_fail(&s, "out of memory for the splice buffer");
    else
        res = inplace ? in_place(&s) : run_splice(&s);
    *refused = s.refused;
    for (size_t i = 0; s.blocks.keys && i <= s.blocks.mask; i++)
        if (s.blocks.keys[i]) free((void *)(uintptr_t)s.blocks.vals[i]);
    hd_map_free(&s.blocks);
    hd_map_free(&s.utf8);
    hd_map_free(&s.texts);
    free(s.arena);
    free(s.fixes);
    free(s.refs);
    free(s.patches);
    free(s.buf);
    return res;
}

enum hd_splice_result hd_splice_run(struct hd_splice *sp)
{
    bool refused = false;
    if (sp->inplace) {
        enum hd_splice_result res = attempt(sp, true, &refused);
        if (!refused) return res;
    }
    return attempt(sp, false, &refused);
}
