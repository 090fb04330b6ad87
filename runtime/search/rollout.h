/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rollout.h: the categorical reward of the value model and the labels
 * of its training data (the paper's section 2.3 and equation 5).
 *
 *   f_r  the reward bin of one judged node: 0 when it is not correct, or
 *        its speedup does not hold beyond the noise (not confirmed), or
 *        is not above 100%; else 1 up to S1 percent, 2 up to S2, 3 up to
 *        S3 and 4 above S3 (bins=S1+S2+S3; 125+180+260 for C and C++,
 *        140+320+475 for CUDA)
 *   u_t  the running max of the binned reward over the node's path, each
 *        step discounted: u_t(n) = max(u_t(parent), g^(depth-1) f_r(n)),
 *        g = MAXCODE_GAMMA (1 unless set), depth 1 for a child of the
 *        original, u_t(original) = 0. The search's raw u (search.h) is
 *        the same over raw speedups.
 *   v*   the value target of a node: max(u_t(n), g^(depth(d)-depth(n))
 *        f_r(d) for every descendant d of n). In a tree, "later on the
 *        same path" is any path through n: the best that was reached
 *        from n.
 *
 * The split of an export is per problem (the key), so that training and
 * validation never share one: a key whose 64-bit XXH3 of its hex digits,
 * over 2^64, is below the train share goes to "train", else to "val".
 * The same key always lands on the same side, whatever else the cache
 * holds.
 */
#ifndef MC_ROLLOUT_H
#define MC_ROLLOUT_H

#include <stddef.h>
#include "status.h"

#define MC_ROLLOUT_BINS 5

struct mc_bins {
    double s[3];           /* S1 < S2 < S3, percent */
};

/* Parse "S1+S2+S3" (also separated by commas or blanks) into B.
 * MC_EINVAL (with what is expected, in ERR) when it is not three
 * increasing positive numbers. */
enum mc_code mc_bins_parse(const char *spec, struct mc_bins *b,
                           struct mc_err *err);

/* f_r of a node: CORRECT, CONFIRMED (its win holds beyond the noise)
 * and its SPEEDUP (a ratio: 1.3 is 130%). */
int mc_bins_reward(const struct mc_bins *b, int correct, int confirmed,
                   double speedup);

/* One node of a search tree as the labels see it. */
struct mc_rollout_node {
    int parent;            /* an earlier node's index, or -1 */
    int depth;             /* 1: a child of the original */
    int fr;                /* its f_r */
    double ut;             /* set by mc_rollout_label() */
    double vstar;          /* set by mc_rollout_label() */
};

/* Set the u_t and v* of the N nodes V (parents before children) with
 * discount GAMMA. */
void mc_rollout_label(struct mc_rollout_node *v, size_t n, double gamma);

/* 1 when the problem KEY goes to the training side at share TRAIN
 * (0..1), else 0. */
int mc_rollout_train_side(const char *key, double train);

#endif /* MC_ROLLOUT_H */
