/* The state of one class's rewrite: the class-level driver (rewrite.c)
 * owns it, the per-method rewriter (code*.c) adds hook Methodrefs to it
 * (hook_refs.c). */
#ifndef BCI_REWRITE_CTX_H
#define BCI_REWRITE_CTX_H

#include "bci/bci.h"
#include "bci/classfile.h"

enum {
    HK_ENTRY,
    HK_EXIT,
    HK_LEAF,
    HK_RESUME,
    HK_CALL,
    HK_SWITCH_FROM,
    HK_SWITCH_TO,
    HK_NEW, /* this one on: the allocation hooks (alloc_class) */
    HK_ARRAY,
    HK_OINIT,
    HK_INVOKE,
    HK_MARK,
    HK_COUNT
};

typedef struct {
    classfile cf;
    const struct bci_hooks *h;
    struct bci_result *res;
    int force;               /* re-encode methods even without injections */
    uint32_t mref[HK_COUNT]; /* Methodref of each hook, appended on first use */
    uint32_t throwable;      /* Class java/lang/Throwable, appended on first use */
    uint32_t smt_name;       /* Utf8 "StackMapTable", found or appended */
} rw_ctx;

/* What to inject into one method. */
typedef struct {
    int mnum;        /* BCI_SKIP: no entry/exit/allocation hooks */
    int object_init; /* java/lang/Object.<init>()V */
    int ctor;        /* <init>: catch-all starts after super()/this() */
    int cont_run;    /* jdk/internal/vm/Continuation.run()V */
} method_plan;

/* Methodref index for hook k, appending it on first use (0 on overflow);
 * in hook_refs.c. */
uint32_t rw_hook_ref(rw_ctx *x, int k);

#endif
