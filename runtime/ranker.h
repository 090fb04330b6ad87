/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ranker.h: which node a strategy expands next. A ranker is a small
 * struct of operations (STYLE 5a) looked up by name in one registry
 * (ranker.c); a strategy's row names the ranker it expands by.
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

struct mc_ranker {
    const char *name;
    /* The index of the node to expand among the N NODES (judged, in
     * order), or -1: the original. */
    int (*pick)(const struct mc_ranker *r, const struct mc_prop_node *nodes,
                size_t n);
};

extern const struct mc_ranker mc_ranker_reward;
extern const struct mc_ranker mc_ranker_value;

/* The ranker called NAME, or NULL when there is none. */
const struct mc_ranker *mc_ranker_find(const char *name);

#endif /* MC_RANKER_H */
