/* Line numbers by bytecode offset, and the static call sites of a method
 * reported through bci_hooks.method_calls. */
#ifndef BCI_CALLS_H
#define BCI_CALLS_H

#include "bci/bci.h"
#include "bci/classfile.h"

/* The line of every offset of code[0..len) over all LineNumberTables among
 * the Code attribute's nattrs attributes (0 where none covers it), as a
 * malloc'd array of len entries; NULL when out of memory. */
int32_t *calls_lines(const cpool *cp, const uint8_t *attrs, uint32_t attrs_len, uint16_t nattrs,
                     uint32_t len);

/* Reports the call sites of valid code[0..len) (lines[] as above) to
 * h->method_calls; NULL on success, else the reason. */
const char *calls_report(const struct bci_hooks *h, const classfile *cf, int mnum,
                         const uint8_t *code, uint32_t len, const int32_t *lines);

/* h->call_number of the invoke at code[pc] (line: its line), BCI_SKIP when
 * none or the call's constants are missing. */
int calls_number(const struct bci_hooks *h, const cpool *cp, int mnum, const uint8_t *code,
                 uint32_t pc, int32_t line);

#endif
