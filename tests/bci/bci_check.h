/* Helpers shared by the rewriter's unit tests (test_bci_unit.c,
 * test_bci_inject.c). */
#ifndef BCI_TEST_CHECK_H
#define BCI_TEST_CHECK_H

#include "bci/bci.h"
#include "bci/classfile.h"
#include "classgen.h"

#include <stddef.h>
#include <stdint.h>

/* Every hook but the call, invoke and leaf ones, class number 7. */
extern const struct bci_hooks all_hooks;

/* Code of method `index` in a class, copied out. */
typedef struct {
    uint16_t max_stack, max_locals;
    uint32_t len;
    uint8_t code[70000];
    uint16_t nexc;
    uint16_t exc[8][4];
    int has_smt;
    uint8_t smt[64]; /* the StackMapTable's first bytes */
} code_t;

/* The Code attribute of method m, or NULL. */
const cf_attr *find_code(const classfile *cf, const cf_member *m);
/* Code of method `index` of a class (asserts it parses). */
void get_code(const uint8_t *cls, size_t len, int index, code_t *c);
/* A class C with the one method m. */
uint8_t *one_method(uint16_t major, const cg_method *m, size_t *len);
/* Rewrites, checks the output re-parses and round-trips identically. */
int rewrite(const uint8_t *cls, size_t len, const struct bci_hooks *h, struct bci_result *r);

#endif
