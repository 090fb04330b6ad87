/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ranker.c: the registry of rankers and the one that ranks by reward.
 * See ranker.h.
 */
#include "mc_setup.h"
#include "ranker.h"
#include "buf.h"

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

static const struct mc_ranker ranker_reward = {
    .name = "reward",
    .pick = pick_reward,
};

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

static const struct mc_ranker ranker_value = {
    .name = "gvf",
    .values = 1,
    .pick = pick_value,
};

/* The registry: one row per ranker. One defined in its own file
 * (ranker_NAME.c) is declared here, beside its row:
 *   extern const struct mc_ranker mc_ranker_NAME;  (ranker_NAME.c) */
static const struct mc_ranker *const rankers[] = {
    &ranker_reward,
    &ranker_value,
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

int
mc_ranker_values(const struct mc_ranker *r)
{
    return r->values;
}

void
mc_ranker_identity(const struct mc_ranker *r, const struct mc_target *t,
                   const struct mc_key_versions *v, struct mc_hash *h)
{
    struct mc_buf id = MC_BUF_INIT;

    if (!mc_ranker_values(r) || !v->value_model)
        return;
    /* Out of memory hashes "": a key, if not the usual one. */
    v->value_model(t, &id);
    mc_hash_field_str(h, "value-model", id.s ? id.s : "");
    mc_buf_release(&id);
}
