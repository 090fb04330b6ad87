/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ranker.c: the registry of rankers and the one that ranks by reward.
 * See ranker.h.
 */
#include "mc_setup.h"
#include "ranker.h"

static int
pick_reward(const struct mc_ranker *r, const struct mc_prop_node *nodes,
            size_t n)
{
    int best = -1;
    size_t i;

    (void)r;
    for (i = 0; i < n; i++)
        if (nodes[i].correct &&
            (best < 0 || nodes[i].reward > nodes[best].reward))
            best = (int)i;
    return best;
}

const struct mc_ranker mc_ranker_reward = {"reward", pick_reward};

/* The correct node with the highest value (the higher reward among
 * equal values, then the first); by reward when no correct node has a
 * value. */
static int
pick_value(const struct mc_ranker *r, const struct mc_prop_node *nodes,
           size_t n)
{
    int best = -1;
    size_t i;

    for (i = 0; i < n; i++) {
        const struct mc_prop_node *a = &nodes[i];

        if (!a->correct || a->value < 0)
            continue;
        if (best < 0 || a->value > nodes[best].value ||
            (a->value == nodes[best].value && a->reward > nodes[best].reward))
            best = (int)i;
    }
    return best >= 0 ? best : pick_reward(r, nodes, n);
}

const struct mc_ranker mc_ranker_value = {"gvf", pick_value};

/* The registry: one row per ranker. */
static const struct mc_ranker *const rankers[] = {
    &mc_ranker_reward,
    &mc_ranker_value,
};

const struct mc_ranker *
mc_ranker_find(const char *name)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(rankers); i++)
        if (!strcmp(rankers[i]->name, name))
            return rankers[i];
    return NULL;
}
