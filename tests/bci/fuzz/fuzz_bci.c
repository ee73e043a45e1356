/* Fuzz target (libFuzzer) over the parser and writer.  Oracles: no crash or
 * sanitizer report; a round-trip that succeeds reproduces the input; and if
 * the input round-trips, every rewrite of it parses again and round-trips to
 * itself.  (Methods left uninstrumented are copied verbatim, so a malformed
 * part of an input can survive into an output; hence the condition.) */
#include "bci/bci.h"

#include <stdlib.h>
#include <string.h>

static int number(void *ctx, const char *name, const char *desc, uint16_t access)
{
    (void)name, (void)desc;
    int *n = ctx;
    return (access & 0x0008) && (*n & 7) == 3 ? BCI_SKIP : 40000 * (*n)++;
}

static int site(void *ctx, const struct bci_site *s)
{
    (void)ctx;
    return s->type[0] == '[' ? (int)s->bci * 70001 : (int)s->bci;
}

/* The long form's numbers, large enough to need ldc2_w. */
static int64_t wide_number(int n)
{
    return (int64_t)n << 33 | 1;
}

static void check_output(const struct bci_result *r)
{
    struct bci_result again;
    if (!bci_roundtrip(r->data, r->len, &again)) abort();
    if (again.len != r->len || memcmp(again.data, r->data, r->len) != 0) abort();
    bci_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    char name[128];
    bci_class_name(data, len, name, sizeof name);
    struct bci_result r;
    int well_formed = bci_roundtrip(data, len, &r);
    if (well_formed) {
        if (r.len != len || memcmp(r.data, data, len) != 0) abort();
        bci_free(&r);
    }
    /* 0: plain exits, 1: catch-all, 2: entry_local (full frames), 3: its
     * long form, passed to the allocation hooks too. */
    for (int variant = 0; variant < 4; variant++) {
        int counter = 0;
        struct bci_hooks h = {
            .tracker_class = "hprof/Tracker",
            .entry_name = "entry",
            .entry_desc = "(II)V",
            .exit_name = "exit",
            .exit_desc = "(II)V",
            .exit_catch_all = variant == 1,
            .new_obj_name = "onNew",
            .new_obj_desc = "(I)V",
            .new_array_name = "onArray",
            .new_array_desc = "(Ljava/lang/Object;I)V",
            .object_init_name = "objectInit",
            .object_init_desc = "(Ljava/lang/Object;)V",
            .class_number = variant ? 0x123456 : 3,
            .method_number = variant ? number : NULL,
            .site_number = variant ? site : NULL,
            .ctx = &counter,
        };
        if (variant == 2) {
            h.entry_local = BCI_LOCAL_INT;
            h.entry_desc = "(I)I";
            h.exit_desc = "(I)V";
            h.resume_name = "resume";
            h.resume_desc = "(I)V";
        } else if (variant == 3) {
            h.entry_local = BCI_LOCAL_LONG;
            h.alloc_local = 1;
            h.long_number = wide_number;
            h.entry_desc = "(J)J";
            h.exit_desc = "(J)V";
            h.resume_name = "resume";
            h.resume_desc = "(JJ)V";
            h.new_obj_desc = "(IJ)V";
            h.new_array_desc = "(Ljava/lang/Object;IJ)V";
        }
        if (bci_rewrite(data, len, &h, &r)) {
            if (well_formed) check_output(&r);
            bci_free(&r);
        }
    }
    return 0;
}
