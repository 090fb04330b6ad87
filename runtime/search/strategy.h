/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strategy.h: search strategies as plans. Before each round the loop
 * (search.c) asks the strategy for a plan: which parents to expand and
 * which failed nodes to repair. The proposer (proposer.h) writes codes
 * for it and the executor judges them. A strategy sees a plain node
 * list (struct mc_prop_node), the budget and the proposer's round size,
 * so a plan can be computed, and tested, without a compiler.
 *
 * A plan is a list of slots (parent, repair) in order of preference and
 * the number of proposals WANT to make. The proposer takes the slots in
 * order until it has WANT proposals, each slot giving one; a run of
 * equal slots is one request for that many (one prompt with n = the
 * run, or one choice of that many knob sets); a slot whose parent has
 * nothing left to give (the built-in proposer's exhausted
 * neighbourhood) is skipped, the proposer then falling back to the
 * original. WANT is never more than the budget left, so the search
 * evaluates exactly its budget.
 *
 * The strategies, one row each in strategy.c (B: budget, n: nodes so
 * far, K: the proposer's round size, K_flat: its flat batch):
 *   flat          min(B - n, K_flat) proposals from the original
 *   effi-learner  single paths of depth 2: at even n a proposal from the
 *                 original, at odd n a refinement of node n - 1 (a
 *                 repair when it is not correct); repeated until B
 *   cuda-llm      rounds of K' = min(K, B) positions: each round
 *                 expands the node the ranker picks (K' - filled
 *                 proposals, the last round cut to hit B); when the
 *                 previous round has no correct node, the round repairs
 *                 that round's candidates instead, one each, in order
 *   gvf           cuda-llm's plan, expanding the node the gvf ranker
 *                 picks: the highest value (value.h), else by reward
 *
 * A new strategy is one row, with a plan function of its own or one of
 * those above, and the name of the ranker it expands by: its name is
 * then a strategy= value (the settings table asks the registry), and
 * its ranker says what the content key holds for it (ranker.h).
 */
#ifndef MC_STRATEGY_H
#define MC_STRATEGY_H

#include "builtin.h"
#include "ranker.h"

#define MC_PLAN_MAX 64 /* slots of one plan, proposals of one round */

struct mc_plan_slot {
    int parent;            /* a node's index, or -1: the original */
    int repair;            /* PARENT failed: fix it rather than improve */
};

struct mc_plan {
    struct mc_plan_slot slot[MC_PLAN_MAX];
    size_t n;              /* slots */
    size_t want;           /* proposals to make: 1 <= WANT <= N */
};

/* What a strategy plans from. */
struct mc_plan_in {
    const struct mc_prop_node *nodes; /* judged so far, in order */
    size_t n;
    size_t budget;                    /* candidates in all, > N */
    size_t k;                         /* the proposer's round size */
    size_t k_flat;                    /* its batch for strategy=flat */
    const struct mc_ranker *ranker;   /* which node to expand */
};

struct mc_strategy {
    const char *name;      /* the strategy= value */
    const char *ranker;    /* the name of the ranker it expands by */
    /* The next round's plan from IN, into OUT. */
    void (*plan)(const struct mc_plan_in *in, struct mc_plan *out);
};

/* The strategy called NAME, or NULL when there is none. */
const struct mc_strategy *mc_strategy_find(const char *name);

/* mc_strategy_name() (declared in conf.h, defined in strategy.c): the
 * values strategy= takes, the registry's names in order. */

/*
 * The next round's plan of strategy S from IN (IN->n < IN->budget), into
 * OUT, with OUT->want cut to the slots and to the budget left.
 */
void mc_strategy_plan(const struct mc_strategy *s,
                      const struct mc_plan_in *in, struct mc_plan *out);

#endif /* MC_STRATEGY_H */
