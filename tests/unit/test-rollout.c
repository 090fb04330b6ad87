/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-rollout.c: the categorical reward f_r under bins= (the defaults,
 * thresholds that move bins, edges, what is not a speedup), the parsing
 * of bins=, the path labels u_t and v* against hand-computed trees (a
 * path whose past best beats everything after it, a better future, a
 * discount), and the per-problem split.
 */
#include "mc_setup.h"
#include "rollout.h"
#include "tap.h"

#include <math.h>

static void
test_rollout__bins_parse(void)
{
    struct mc_bins b;

    ok(mc_bins_parse("125+180+260", &b, NULL) == MC_OK && b.s[0] == 125 &&
           b.s[1] == 180 && b.s[2] == 260, "125+180+260");
    ok(mc_bins_parse("140, 320 475", &b, NULL) == MC_OK && b.s[2] == 475,
       "commas and blanks");
    ok(mc_bins_parse("110.5+200+300", &b, NULL) == MC_OK && b.s[0] == 110.5,
       "fractions");
    ok(mc_bins_parse("180+125+260", &b, NULL) == MC_EINVAL, "decreasing");
    ok(mc_bins_parse("125+180", &b, NULL) == MC_EINVAL, "two");
    ok(mc_bins_parse("125+180+260+300", &b, NULL) == MC_EINVAL, "four");
    ok(mc_bins_parse("125+x+260", &b, NULL) == MC_EINVAL, "not a number");
    ok(mc_bins_parse("-5+180+260", &b, NULL) == MC_EINVAL, "negative");
}

static void
test_rollout__reward_bins(void)
{
    struct mc_bins cpu, cuda, wide;

    mc_bins_parse("125+180+260", &cpu, NULL);
    mc_bins_parse("140+320+475", &cuda, NULL);
    mc_bins_parse("110+1000+5000", &wide, NULL);
    is_long(mc_bins_reward(&cpu, 0, 0, 3.0), 0, "incorrect: 0");
    is_long(mc_bins_reward(&cpu, 1, 0, 3.0), 0, "not beyond the noise: 0");
    is_long(mc_bins_reward(&cpu, 1, 1, 1.0), 0, "100%: 0");
    is_long(mc_bins_reward(&cpu, 1, 1, 0.8), 0, "slower: 0");
    is_long(mc_bins_reward(&cpu, 1, 1, 1.01), 1, "101%: 1");
    is_long(mc_bins_reward(&cpu, 1, 1, 1.25), 1, "125% is still 1");
    is_long(mc_bins_reward(&cpu, 1, 1, 1.26), 2, "126%: 2");
    is_long(mc_bins_reward(&cpu, 1, 1, 1.80), 2, "180%: 2");
    is_long(mc_bins_reward(&cpu, 1, 1, 2.0), 3, "200%: 3");
    is_long(mc_bins_reward(&cpu, 1, 1, 2.6), 3, "260%: 3");
    is_long(mc_bins_reward(&cpu, 1, 1, 2.61), 4, "261%: 4");
    /* The same speedups under the CUDA thresholds. */
    is_long(mc_bins_reward(&cuda, 1, 1, 1.3), 1, "cuda: 130% is 1");
    is_long(mc_bins_reward(&cuda, 1, 1, 2.0), 2, "cuda: 200% is 2");
    is_long(mc_bins_reward(&cuda, 1, 1, 4.0), 3, "cuda: 400% is 3");
    is_long(mc_bins_reward(&cuda, 1, 1, 5.0), 4, "cuda: 500% is 4");
    /* Thresholds move the bins. */
    is_long(mc_bins_reward(&wide, 1, 1, 2.0), 2, "wide: 200% is 2");
    is_long(mc_bins_reward(&wide, 1, 1, 5.0), 2, "wide: 500% is 2");
    is_long(mc_bins_reward(&wide, 1, 1, 20.0), 3, "wide: 2000% is 3");
    is_long(mc_bins_reward(&wide, 1, 1, 1.05), 1, "wide: 105% is 1");
}

/* Set node I of V: PARENT, DEPTH, F_R. */
static void
node(struct mc_rollout_node *v, int i, int parent, int depth, int fr)
{
    v[i].parent = parent;
    v[i].depth = depth;
    v[i].fr = fr;
}

static void
test_rollout__labels(void)
{
    struct mc_rollout_node v[7];

    /*
     * Path A: 0 (f_r 3) -> 1 (2) -> 2 (1): the past best beats all that
     * follows. Path B: 3 (0) -> 4 (1) -> 5 (4): the future is better.
     * 6 (2) is a second child of 0.
     */
    node(v, 0, -1, 1, 3);
    node(v, 1, 0, 2, 2);
    node(v, 2, 1, 3, 1);
    node(v, 3, -1, 1, 0);
    node(v, 4, 3, 2, 1);
    node(v, 5, 4, 3, 4);
    node(v, 6, 0, 2, 2);
    mc_rollout_label(v, 7, 1.0);
    ok(v[0].ut == 3 && v[1].ut == 3 && v[2].ut == 3, "path A: u_t 3 3 3");
    ok(v[0].vstar == 3 && v[1].vstar == 3 && v[2].vstar == 3,
       "path A: v* is the past best, 3 3 3");
    ok(v[3].ut == 0 && v[4].ut == 1 && v[5].ut == 4, "path B: u_t 0 1 4");
    ok(v[3].vstar == 4 && v[4].vstar == 4 && v[5].vstar == 4,
       "path B: v* is the best ahead, 4 4 4");
    ok(v[6].ut == 3 && v[6].vstar == 3, "a sibling: u_t and v* 3");

    /* With a discount: u_t = max(u_t(parent), g^(depth-1) f_r) and
     * v* = max(u_t, g^(steps) f_r ahead). */
    node(v, 0, -1, 1, 1);
    node(v, 1, 0, 2, 4);
    mc_rollout_label(v, 2, 0.5);
    ok(v[0].ut == 1 && fabs(v[1].ut - 2) < 1e-12, "discounted u_t 1 2");
    ok(fabs(v[0].vstar - 2) < 1e-12, "discounted v* of the root: 0.5 * 4");
    ok(fabs(v[1].vstar - 2) < 1e-12, "v* of the leaf is its u_t");

    /* A parent that does not come earlier is ignored. */
    node(v, 0, 5, 1, 2);
    mc_rollout_label(v, 1, 1.0);
    ok(v[0].ut == 2 && v[0].vstar == 2, "a bad parent: the node alone");
}

static void
test_rollout__split(void)
{
    static const char *const keys[] = {
        "00000000000000000000000000000000", "0123456789abcdef0123456789abcdef",
        "ffffffffffffffffffffffffffffffff", "8badf00d8badf00d8badf00d8badf00d"};
    size_t i;
    int stable = 1;

    for (i = 0; i < MC_ARRAY_SIZE(keys); i++) {
        int a = mc_rollout_train_side(keys[i], 0.5);

        stable &= a == mc_rollout_train_side(keys[i], 0.5);
        stable &= mc_rollout_train_side(keys[i], 1.0) == 1;
        stable &= !a || mc_rollout_train_side(keys[i], 0.9);
    }
    ok(stable, "a key lands on one side, every share above it too");
    ok(mc_rollout_train_side(keys[0], 1.0), "share 1: all train");
}

int
main(void)
{
    TAP_RUN(test_rollout__bins_parse);
    TAP_RUN(test_rollout__reward_bins);
    TAP_RUN(test_rollout__labels);
    TAP_RUN(test_rollout__split);
    return tap_done();
}
