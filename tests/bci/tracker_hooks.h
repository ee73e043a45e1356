/* Hooks of the test tracker class hprofbci/Tracker (tests/bci/java), shared
 * by the C test drivers.  Numbers are spread over all push encodings
 * (iconst, bipush, sipush, ldc) so every one of them gets exercised. */
#ifndef BCI_TRACKER_HOOKS_H
#define BCI_TRACKER_HOOKS_H

#include "bci/bci.h"

struct tracker_numbers {
    int cls, methods, sites;
};

/* Non-negative for every n >= 0 (negative numbers would mean BCI_SKIP). */
static inline int tracker_spread(int n)
{
    static const int base[4] = {0, 100, 30000, 700000};
    return base[n & 3] + n;
}

static inline int tracker_method(void *ctx, const char *name, const char *desc, uint16_t access)
{
    (void)name, (void)desc, (void)access;
    return tracker_spread(((struct tracker_numbers *)ctx)->methods++);
}

static inline int tracker_site(void *ctx, const struct bci_site *s)
{
    (void)s;
    return tracker_spread(((struct tracker_numbers *)ctx)->sites++);
}

/* bci_hooks.long_number of the long form: the number + 1 from bit 40 up
 * (Tracker.enterWide), so that ldc2_w pushes it. */
static inline int64_t tracker_wide_number(int n)
{
    return (int64_t)(n + 1) << 40;
}

static inline struct bci_hooks tracker_hooks(struct tracker_numbers *n)
{
    struct bci_hooks h = {
        .tracker_class = "hprofbci/Tracker",
        .entry_name = "entry",
        .entry_desc = "(II)V",
        .exit_name = "exit",
        .exit_desc = "(II)V",
        .exit_catch_all = 1,
        .new_obj_name = "onNew",
        .new_obj_desc = "(I)V",
        .new_array_name = "onArray",
        .new_array_desc = "(Ljava/lang/Object;I)V",
        .object_init_name = "objectInit",
        .object_init_desc = "(Ljava/lang/Object;)V",
        .class_number = 0x12345,
        .method_number = tracker_method,
        .site_number = tracker_site,
        .ctx = n,
    };
    return h;
}

#endif
