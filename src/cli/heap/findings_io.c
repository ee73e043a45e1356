/* The findings as the index stores them: flat uint64 arrays, checked when read back. */
#include <stdlib.h>
#include <string.h>

#include "cli/heap/findings.h"

void hp_findings_image_free(hp_findings_image *im)
{
    free(im->histo);
    free(im->waste);
    free(im->dups);
    free(im->suspects);
    memset(im, 0, sizeof *im);
}

int hp_findings_pack(const hp_findings *fx, hp_findings_image *im)
{
    memset(im, 0, sizeof *im);
    im->nrows = fx->histo.nrows;
    im->ndups = fx->waste.ndups;
    im->nsuspects = fx->nsuspects;
    im->histo = calloc(im->nrows * HP_HISTO_WORDS + 1, 8);
    im->waste = calloc(HP_WASTE_WORDS, 8);
    im->dups = calloc(im->ndups * HP_DUP_WORDS + 1, 8);
    im->suspects = calloc(im->nsuspects * HP_SUSPECT_WORDS + 1, 8);
    if (!im->histo || !im->waste || !im->dups || !im->suspects) {
        hp_findings_image_free(im);
        return -1;
    }
    for (size_t i = 0; i < im->nrows; i++) {
        const hp_histo_row *r = &fx->histo.rows[i];
        uint64_t *o = im->histo + i * HP_HISTO_WORDS;
        o[0] = r->class_id, o[1] = r->prim_type, o[2] = r->count, o[3] = r->bytes;
        o[4] = r->retained;
    }
    for (int k = 0; k < HP_WASTE_KINDS; k++) {
        const hp_waste_kind *wk = &fx->waste.kinds[k];
        uint64_t *o = im->waste + k * 4;
        o[0] = wk->bytes, o[1] = wk->count, o[2] = wk->sample, o[3] = wk->sample_bytes;
    }
    im->waste[4 * HP_WASTE_KINDS] = fx->waste.distinct_dups;
    for (size_t i = 0; i < im->ndups; i++) {
        const hp_dup_string *d = &fx->waste.dups[i];
        uint64_t *o = im->dups + i * HP_DUP_WORDS;
        o[0] = d->string, o[1] = d->count, o[2] = d->bytes;
    }
    for (size_t i = 0; i < im->nsuspects; i++) {
        const hp_suspect *s = &fx->suspects[i];
        uint64_t *o = im->suspects + i * HP_SUSPECT_WORDS;
        o[0] = s->object, o[1] = s->accumulation;
        o[2] = s->row ? (uint64_t)(s->row - fx->histo.rows) + 1 : 0;
        o[3] = s->retained;
    }
    return 0;
}

/* An object number from the image: below n, or HP_NO_OBJECT where `none_ok`. */
static int object_ok(uint64_t v, uint32_t n, int none_ok)
{
    return v < n || (none_ok && v == HP_NO_OBJECT);
}

static int unpack_histo(hp_histo *hs, const hp_findings_image *im)
{
    hs->rows = malloc((im->nrows + 1) * sizeof *hs->rows);
    if (!hs->rows) return -1;
    for (size_t i = 0; i < im->nrows; i++) {
        const uint64_t *o = im->histo + i * HP_HISTO_WORDS;
        if (o[1] > HP_T_LONG || (o[1] && !hp_is_prim_type((uint8_t)o[1]))) return -1;
        hs->rows[hs->nrows++] = (hp_histo_row){o[0], (uint8_t)o[1], o[2], o[3], o[4]};
        hs->instances += o[2];
        hs->bytes += o[3];
    }
    return 0;
}

static int unpack_waste(hp_waste *w, const hp_findings_image *im, uint32_t n)
{
    for (int k = 0; k < HP_WASTE_KINDS; k++) {
        const uint64_t *o = im->waste + k * 4;
        if (!object_ok(o[2], n, 1)) return -1;
        w->kinds[k] = (hp_waste_kind){o[0], o[1], (uint32_t)o[2], o[3]};
    }
    w->distinct_dups = im->waste[4 * HP_WASTE_KINDS];
    w->dups = malloc((im->ndups + 1) * sizeof *w->dups);
    if (!w->dups) return -1;
    for (size_t i = 0; i < im->ndups; i++) {
        const uint64_t *o = im->dups + i * HP_DUP_WORDS;
        if (!object_ok(o[0], n, 0)) return -1;
        w->dups[w->ndups++] = (hp_dup_string){(uint32_t)o[0], o[1], o[2]};
    }
    return 0;
}

static int unpack_suspects(hp_findings *fx, const hp_findings_image *im, uint32_t n)
{
    fx->suspects = malloc((im->nsuspects + 1) * sizeof *fx->suspects);
    if (!fx->suspects) return -1;
    for (size_t i = 0; i < im->nsuspects; i++) {
        const uint64_t *o = im->suspects + i * HP_SUSPECT_WORDS;
        /* An object suspect has its accumulation point, a class suspect its row. */
        if (!object_ok(o[0], n, 0) || o[2] > fx->histo.nrows || !object_ok(o[1], n, o[2] != 0) ||
            (o[2] == 0) == (o[1] == HP_NO_OBJECT))
            return -1;
        fx->suspects[fx->nsuspects++] = (hp_suspect){(uint32_t)o[0], (uint32_t)o[1],
                                                     o[2] ? &fx->histo.rows[o[2] - 1] : NULL, o[3]};
    }
    return 0;
}

int hp_findings_unpack(hp_findings *fx, const hp_findings_image *im, const hp_graph *g)
{
    uint32_t n = g->obj.n;
    memset(fx, 0, sizeof *fx);
    if (unpack_histo(&fx->histo, im) != 0 || unpack_waste(&fx->waste, im, n) != 0 ||
        unpack_suspects(fx, im, n) != 0) {
        hp_findings_free(fx);
        return -1;
    }
    return 0;
}
