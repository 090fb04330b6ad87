/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ranker.h: which node a strategy expands next. A ranker is a small
 * struct of operations (STYLE 5a) looked up by name in one registry
 * (ranker.c); a strategy's row names the ranker it expands by. A new
 * ranker is one file defining one `const struct mc_ranker` and one row
 * (with its extern line) in the registry.
 *
 *   reward  the correct node with the highest reward (the first of
 *           equals), or the original when no node is correct
 *   gvf     the correct node with the highest value (value.h: the value
 *           model's expected reward bin; the higher reward among equal
 *           values), even when its measured reward is not the highest;
 *           by reward when no correct node has a value (no value model,
 *           or one that failed)
 */
#ifndef MC_RANKER_H
#define MC_RANKER_H

#include "builtin.h"
#include "hash.h"
#include "target.h"

struct mc_ranker {
    const char *name;
    /* 1: the ranker reads the nodes' values, so the search opens a
     * value model (value.h) and the content key holds that model's
     * identity. Both read this one field (mc_ranker_identity(),
     * mc_ranker_values()), so what ranks and what is keyed cannot
     * disagree. */
    int values;
    /* The index of the node to expand among the N NODES (judged, in
     * order), or -1: the original. */
    int (*pick)(const struct mc_ranker *r, const struct mc_prop_node *nodes,
                size_t n);
};

/* The ranker called NAME, or NULL when there is none. */
const struct mc_ranker *mc_ranker_find(const char *name);

/* Whether R ranks by a value model: the search opens one for it. */
int mc_ranker_values(const struct mc_ranker *r);

/*
 * Add to H, the content key of target T, what R's choices depend on
 * beyond the options: for a ranker by values, the value model's identity
 * as V->value_model (key.h: mc_value_identity()) writes it, as the field
 * "value-model" (out of memory hashes ""); nothing for the others, nor
 * when V->value_model is NULL.
 */
void mc_ranker_identity(const struct mc_ranker *r, const struct mc_target *t,
                        const struct mc_key_versions *v, struct mc_hash *h);

#endif /* MC_RANKER_H */
