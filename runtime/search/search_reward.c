/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_reward.c: the search's bookkeeping of its nodes' rewards: each
 * node's reward, u, f_r and u_t from its verdict, the best confirmed
 * node, the correct ones, and the plain view of the nodes that
 * strategies and proposers read. See search.h.
 */
#include "mc_setup.h"
#include "search_int.h"
#include "alloc.h"

#include <math.h>

size_t
mc_search_correct(const struct mc_search *s)
{
    size_t i, n = 0;

    for (i = 0; i < s->n; i++)
        n += s->nodes[i].correct;
    return n;
}

int
mc_search_best_correct(const struct mc_search *s)
{
    int best = -1;
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->nodes[i].correct &&
            (best < 0 || s->nodes[i].reward > s->nodes[best].reward))
            best = (int)i;
    return best;
}

double
mc_search_best_reward(const struct mc_search *s)
{
    return s->best >= 0 ? s->nodes[s->best].reward : 1.0;
}

struct mc_prop_node *
mc_search_view(const struct mc_search *s)
{
    struct mc_prop_node *v = mc_calloc(s->n + 1, sizeof(*v));
    size_t i;

    for (i = 0; v && i < s->n; i++) {
        v[i].parent = s->nodes[i].parent;
        v[i].tag = s->nodes[i].tag;
        v[i].evaluated = 1;
        v[i].correct = s->nodes[i].correct;
        v[i].compile_error = s->nodes[i].compile_error;
        v[i].speedup = s->nodes[i].speedup;
        v[i].reward = s->nodes[i].reward;
        v[i].value = s->nodes[i].value;
    }
    return v;
}

void
mc_search_update_best(struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];

    if (nd->confirmed &&
        (s->best < 0 || nd->reward > s->nodes[s->best].reward))
        s->best = (int)i;
}

void
mc_search_set_reward(struct mc_search *s, struct mc_search_node *nd)
{
    double g = pow(s->gamma, nd->depth);

    nd->reward = nd->speedup;
    nd->u = fmax(nd->parent >= 0 ? s->nodes[nd->parent].u : 0,
                 g * nd->reward);
    nd->fr = mc_bins_reward(&s->bins, nd->correct, nd->confirmed,
                            nd->speedup);
    nd->ut = fmax(nd->parent >= 0 ? s->nodes[nd->parent].ut : 0,
                  pow(s->gamma, nd->depth - 1) * nd->fr);
}
