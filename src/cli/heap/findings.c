/* Computing the findings once, in steps that each hold only their own arrays. */
#include "cli/heap/findings.h"

#include <stdlib.h>
#include <string.h>

#include "cli/heap/histo_retained.h"

/* The histogram with retained sizes, then the suspects, which need both. */
static int histo_and_suspects(hp_findings *fx, const hp_heap *h, hp_error *err)
{
    uint32_t *rows = NULL;
    hp_domkids kids = {0};
    int rc = hp_histo_from_graph(&fx->histo, h, &rows, err);
    if (rc == 0) {
        rc = hp_domkids_build(&kids, &h->d, err);
        hp_heap_release(h, h->d.idom, ((size_t)h->d.n + 1) * 4);
    }
    if (rc == 0) rc = hp_histo_add_retained(&fx->histo, h, &kids, rows, err);
    if (rc == 0)
        rc = hp_suspects_find(h, &kids, &fx->histo, rows, &fx->suspects, &fx->nsuspects, err);
    hp_heap_release(h, h->d.retained, ((size_t)h->d.n + 1) * 8);
    hp_domkids_free(&kids);
    free(rows);
    return rc;
}

int hp_findings_build(hp_findings *fx, const hp_heap *h, hp_error *err)
{
    memset(fx, 0, sizeof *fx);
    if (histo_and_suspects(fx, h, err) != 0 || hp_waste_find(&fx->waste, h, err) != 0) {
        hp_findings_free(fx);
        return -1;
    }
    return 0;
}

void hp_findings_free(hp_findings *fx)
{
    hp_histo_free(&fx->histo);
    hp_waste_free(&fx->waste);
    free(fx->suspects);
    memset(fx, 0, sizeof *fx);
}
