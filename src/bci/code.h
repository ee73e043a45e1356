/* The per-method code rewriter (code.c and its code_*.c parts), called by
 * the class-level driver (rewrite.c). */
#ifndef BCI_CODE_H
#define BCI_CODE_H

#include "bci/rewrite_ctx.h"

/* Rewrites m's Code attribute into m->new_code (left NULL when nothing was
 * injected and not forced).  NULL on success, else the reason. */
const char *code_rewrite(rw_ctx *x, cf_member *m, const cf_attr *code, const method_plan *p);

#endif
