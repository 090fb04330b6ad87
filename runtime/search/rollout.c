/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rollout.c: reward bins, path labels (u_t, v*) and the per-problem
 * split of the value model's data. See rollout.h.
 */
#include "mc_setup.h"
#include "rollout.h"

#include <math.h>
#include <xxhash.h>

enum mc_code
mc_bins_parse(const char *spec, struct mc_bins *b, struct mc_err *err)
{
    const char *p = spec;
    double prev = 0;
    int i;

    for (i = 0; i < 3; i++) {
        char *end;
        double v;

        p += strspn(p, "+, \t");
        v = strtod(p, &end);
        if (end == p || !isfinite(v) || v <= prev)
            break;
        b->s[i] = prev = v;
        p = end;
    }
    p += strspn(p, "+, \t");
    if (i < 3 || *p)
        return mc_err_set(err, MC_EINVAL, "bins '%s': expected three "
                          "increasing percentages S1+S2+S3, such as "
                          "125+180+260", spec);
    return MC_OK;
}

int
mc_bins_reward(const struct mc_bins *b, int correct, int confirmed,
               double speedup)
{
    double pct = speedup * 100.0;

    if (!correct || !confirmed || !(pct > 100.0))
        return 0;
    if (pct <= b->s[0])
        return 1;
    if (pct <= b->s[1])
        return 2;
    if (pct <= b->s[2])
        return 3;
    return 4;
}

void
mc_rollout_label(struct mc_rollout_node *v, size_t n, double gamma)
{
    size_t i;

    for (i = 0; i < n; i++) {
        double own = pow(gamma, v[i].depth - 1) * v[i].fr;
        int p = v[i].parent;

        v[i].ut = fmax(p >= 0 && (size_t)p < i ? v[p].ut : 0, own);
        v[i].vstar = 0; /* for now: the best of the descendants */
    }
    /* Children come after their parents: walking back, a node's
     * descendants are all done when it is reached; it hands its best
     * (its own f_r or a descendant's) to its parent, one step further
     * discounted. */
    for (i = n; i-- > 0;) {
        double best = fmax(v[i].fr, v[i].vstar);
        int p = v[i].parent;

        if (p >= 0 && (size_t)p < i)
            v[p].vstar = fmax(v[p].vstar, gamma * best);
    }
    for (i = 0; i < n; i++)
        v[i].vstar = fmax(v[i].ut, v[i].vstar);
}

int
mc_rollout_train_side(const char *key, double train)
{
    XXH64_hash_t h = XXH3_64bits(key, strlen(key));

    return (double)h / 18446744073709551616.0 < train;
}
