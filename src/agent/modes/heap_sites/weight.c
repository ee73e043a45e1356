#include "agent/modes/heap_sites/weight.h"

/* 1 - exp(-x) for x >= 0 without libm (the agent links none): exp of a
 * small argument by its Taylor series, then squared back up. Relative error
 * is far below the sampling noise. */
static double one_minus_exp_neg(double x)
{
    if (x > 40) return 1.0;
    int halvings = 0;
    while (x > 1.0 / 16) {
        x /= 2;
        halvings++;
    }
    /* e = exp(-x) - 1, kept as an offset from 1 so tiny x keeps precision. */
    double e = -x * (1 - x / 2 * (1 - x / 3 * (1 - x / 4 * (1 - x / 5 * (1 - x / 6)))));
    while (halvings-- > 0)
        e = e * (2 + e); /* (1+e)^2 - 1 */
    return -e;
}

uint64_t hp_sites_weight(uint64_t size, uint64_t interval)
{
    if (interval == 0 || size == 0) return HP_SITE_ONE;
    double p = one_minus_exp_neg((double)size / (double)interval);
    double w = HP_SITE_ONE / p;
    return w >= 1.8e19 ? UINT64_MAX : (uint64_t)(w + 0.5);
}
