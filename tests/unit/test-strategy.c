/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-strategy.c: the strategies' plans, computed from a plain node
 * list: for each strategy, which parents each round expands and which
 * failed nodes it repairs, with the built-in proposer's round sizes
 * (K = 4, flat one at a time) and the model's (K = 8), a proposer that
 * skips a slot, and that the rounds add up to exactly the budget. Each
 * strategy's rounds are spelt out, so two strategies given the same plan
 * fail here. Also the rankers by reward and by value, and that the
 * registries' names are the values strategy= and proposer= take.
 */
#include "mc_setup.h"
#include "buf.h"
#include "conf.h"
#include "proposer.h"
#include "ranker.h"
#include "strategy.h"
#include "tap.h"

/* What the fake executor says of node I: correct, with this reward. */
static const double outcome[] = {
    0, 0, 0, 0,         /* nodes 0-3: all wrong */
    0, 1.5, 2.0, 0,     /* 4-7: 5 and 6 correct, 6 the best */
    1.2, 0, 0, 0,       /* 8-11 */
    0, 0, 0, 0,
};

/*
 * Run STRATEGY to BUDGET with round sizes K and K_FLAT; a slot whose
 * parent is SKIP (and that repairs) gives no proposal, as the built-in
 * proposer's exhausted neighbourhood. The rounds go into OUT, one line
 * each, a slot taken as "P" (expand P, -1: the original) or "Pr"
 * (repair P). Returns the number of candidates evaluated, or -1 when a
 * plan broke its contract.
 */
static long
simulate(const char *strategy, size_t budget, size_t k, size_t k_flat,
         int skip, struct mc_buf *out)
{
    const struct mc_strategy *st = mc_strategy_find(strategy);
    struct mc_prop_node nodes[MC_ARRAY_SIZE(outcome)];
    struct mc_plan_in in;
    size_t n = 0, rounds = 0;

    if (!st || budget > MC_ARRAY_SIZE(outcome))
        return -1;
    memset(nodes, 0, sizeof(nodes));
    in.nodes = nodes;
    in.budget = budget;
    in.k = k;
    in.k_flat = k_flat;
    in.ranker = mc_ranker_find(st->ranker);
    while (n < budget && rounds++ < 100) {
        struct mc_plan plan;
        size_t i, took = 0;

        in.n = n;
        mc_strategy_plan(st, &in, &plan);
        if (!plan.want || plan.want > plan.n || plan.want > budget - n)
            return -1;
        for (i = 0; i < plan.n && took < plan.want; i++) {
            const struct mc_plan_slot *sl = &plan.slot[i];

            if (sl->repair && sl->parent == skip)
                continue;
            mc_buf_addf(out, "%s%d%s", took ? " " : "", sl->parent,
                        sl->repair ? "r" : "");
            nodes[n].parent = sl->parent;
            nodes[n].evaluated = 1;
            nodes[n].correct = outcome[n] > 0;
            nodes[n].speedup = nodes[n].reward = outcome[n];
            n++;
            took++;
        }
        mc_buf_adds(out, "\n");
    }
    return (long)n;
}

/* Run STRATEGY and compare its rounds with WANT; it must evaluate
 * exactly BUDGET. */
static void
plans_are(const char *strategy, size_t budget, size_t k, size_t k_flat,
          int skip, const char *want, const char *name)
{
    struct mc_buf got = MC_BUF_INIT;
    long n = simulate(strategy, budget, k, k_flat, skip, &got);
    char what[160];

    snprintf(what, sizeof(what), "%s: %s", strategy, name);
    is_str(got.s, want, what);
    snprintf(what, sizeof(what), "%s: %s: exactly the budget", strategy,
             name);
    is_long(n, (long)budget, what);
    mc_buf_release(&got);
}

static void
test_strategy__flat(void)
{
    plans_are("flat", 10, 4, 1, -2,
              "-1\n-1\n-1\n-1\n-1\n-1\n-1\n-1\n-1\n-1\n",
              "built-in: one proposal from the original at a time");
    plans_are("flat", 10, 8, 8, -2,
              "-1 -1 -1 -1 -1 -1 -1 -1\n-1 -1\n",
              "model: 8 from the original, then the 2 left");
}

static void
test_strategy__effi_learner(void)
{
    /* Node 0 wrong: 1 repairs it; 4 wrong: 5 repairs it; 6 and 8
     * correct: 7 and 9 refine them. */
    const char *want = "-1\n0r\n-1\n2r\n-1\n4r\n-1\n6\n-1\n8\n";

    plans_are("effi-learner", 10, 4, 1, -2, want,
              "built-in: paths of depth 2");
    plans_are("effi-learner", 10, 8, 8, -2, want,
              "model: the same paths");
    plans_are("effi-learner", 3, 4, 1, -2, "-1\n0r\n-1\n",
              "an odd budget ends on a new path");
}

static void
test_strategy__cuda_llm(void)
{
    plans_are("cuda-llm", 10, 4, 1, -2,
              "-1 -1 -1 -1\n0r 1r 2r 3r\n6 6\n",
              "built-in: K = 4; no correct node: repair the round; then "
              "expand the best, the last round cut to the budget");
    plans_are("cuda-llm", 10, 8, 8, -2,
              "-1 -1 -1 -1 -1 -1 -1 -1\n6 6\n",
              "model: K = 8, then expand the best");
    plans_are("cuda-llm", 3, 8, 8, -2, "-1 -1 -1\n",
              "K = min(K, budget)");
    plans_are("cuda-llm", 12, 4, 1, 1,
              "-1 -1 -1 -1\n0r 2r 3r\n0r\n6 6 6 6\n",
              "a skipped repair: the round is topped up next time");
}

static void
test_strategy__gvf(void)
{
    /* Without its value model, gvf plans as cuda-llm does. */
    plans_are("gvf", 10, 4, 1, -2, "-1 -1 -1 -1\n0r 1r 2r 3r\n6 6\n",
              "built-in: as cuda-llm");
    plans_are("gvf", 10, 8, 8, -2, "-1 -1 -1 -1 -1 -1 -1 -1\n6 6\n",
              "model: as cuda-llm");
}

static void
test_strategy__every_budget_is_exact(void)
{
    static const char *const names[] = {"flat", "effi-learner", "cuda-llm",
                                        "gvf"};
    size_t i, b;
    int all = 1;

    for (i = 0; i < MC_ARRAY_SIZE(names); i++)
        for (b = 1; b <= MC_ARRAY_SIZE(outcome); b++) {
            struct mc_buf sink = MC_BUF_INIT;

            all &= simulate(names[i], b, 4, 1, -2, &sink) == (long)b;
            all &= simulate(names[i], b, 8, 8, -2, &sink) == (long)b;
            all &= simulate(names[i], b, 4, 1, 1, &sink) == (long)b;
            mc_buf_release(&sink);
        }
    ok(all, "every strategy evaluates exactly budgets 1 to 16");
}

static void
test_strategy__lookup(void)
{
    ok(mc_strategy_find("cuda-llm") != NULL, "cuda-llm is a strategy");
    ok(mc_strategy_find("beam") == NULL, "an unknown name is none");
    ok(mc_ranker_find("reward") && !mc_ranker_values(mc_ranker_find(
           "reward")), "the reward ranker, which needs no value model");
    ok(mc_ranker_find("gvf") && mc_ranker_values(mc_ranker_find("gvf")),
       "the value ranker, which needs one");
    ok(mc_ranker_find("value") == NULL, "an unknown ranker is none");
}

/* The registries are the only lists of names: the settings table takes
 * exactly their names, and each row is whole. */
static void
test_strategy__registries_name_the_values(void)
{
    struct mc_err err = MC_ERR_INIT;
    const char *name;
    size_t i;
    int all = 1;

    for (i = 0; (name = mc_strategy_name(i)) != NULL; i++) {
        const struct mc_strategy *st = mc_strategy_find(name);

        all &= st != NULL && mc_ranker_find(st->ranker) != NULL;
        all &= mc_conf_check(MC_SET_STRATEGY, name, NULL, &err) == MC_OK;
    }
    is_long((long)i, 4, "four strategies");
    ok(all, "each is a strategy= value with a ranker");
    is_str(mc_strategy_name(0), "flat", "in the registry's order");
    ok(mc_conf_check(MC_SET_STRATEGY, "beam", NULL, &err) == MC_ECONFIG &&
           strstr(err.msg, "one of: flat effi-learner cuda-llm gvf"),
       "another name is refused, with the registry's names");
    all = 1;
    for (i = 0; (name = mc_proposer_name(i)) != NULL; i++) {
        const struct mc_proposer *p = mc_proposer_find(name);

        all &= mc_conf_check(MC_SET_PROPOSER, name, NULL, &err) == MC_OK;
        if (strcmp(name, "auto"))
            all &= p != NULL && p->identity != NULL && p->init != NULL &&
                   p->propose != NULL;
    }
    ok(all, "each proposer= value is a whole proposer, or auto");
    mc_err_clear(&err);
    ok(mc_conf_check(MC_SET_PROPOSER, "fixed", NULL, &err) == MC_ECONFIG &&
           strstr(err.msg, "one of: llm builtin auto"),
       "an unknown proposer is refused, with the registry's names");
}

static void
test_strategy__ranker_by_reward(void)
{
    struct mc_prop_node v[4];
    const struct mc_ranker *r = mc_ranker_find("reward");

    memset(v, 0, sizeof(v));
    is_long(r->pick(r, v, 4), -1, "no correct node: the original");
    v[1].correct = 1;
    v[1].reward = 1.5;
    v[2].reward = 9; /* wrong: never picked */
    v[3].correct = 1;
    v[3].reward = 1.5;
    is_long(r->pick(r, v, 4), 1, "the first of equal rewards");
    v[3].reward = 1.6;
    is_long(r->pick(r, v, 4), 3, "the highest reward");
    is_long(r->pick(r, v, 0), -1, "no nodes: the original");
}

static void
test_strategy__ranker_by_value(void)
{
    struct mc_prop_node v[4];
    const struct mc_ranker *r = mc_ranker_find("gvf");
    int i;

    memset(v, 0, sizeof(v));
    for (i = 0; i < 4; i++)
        v[i].value = -1;
    is_long(r->pick(r, v, 4), -1, "no correct node: the original");
    v[1].correct = v[3].correct = 1;
    v[1].reward = 3.0;
    v[3].reward = 1.1;
    is_long(r->pick(r, v, 4), 1, "no values: by reward");
    v[1].value = 1.5;
    v[3].value = 3.2;
    v[2].value = 4; /* wrong: never picked */
    is_long(r->pick(r, v, 4), 3,
            "the highest value, though its reward is lower");
    v[1].value = 3.2;
    is_long(r->pick(r, v, 4), 1, "equal values: the higher reward");
    v[1].value = -1;
    is_long(r->pick(r, v, 4), 3, "a node without a value is passed over");
}

int
main(void)
{
    TAP_RUN(test_strategy__flat);
    TAP_RUN(test_strategy__effi_learner);
    TAP_RUN(test_strategy__cuda_llm);
    TAP_RUN(test_strategy__gvf);
    TAP_RUN(test_strategy__every_budget_is_exact);
    TAP_RUN(test_strategy__lookup);
    TAP_RUN(test_strategy__registries_name_the_values);
    TAP_RUN(test_strategy__ranker_by_reward);
    TAP_RUN(test_strategy__ranker_by_value);
    return tap_done();
}
