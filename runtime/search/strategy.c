/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strategy.c: the strategies' plans, one row each in the registry at the
 * end. See strategy.h.
 */
#include "mc_setup.h"
#include "strategy.h"

/* Add N slots (PARENT, REPAIR) to P. */
static void
add_slots(struct mc_plan *p, int parent, int repair, size_t n)
{
    for (; n > 0 && p->n < MC_PLAN_MAX; n--) {
        p->slot[p->n].parent = parent;
        p->slot[p->n].repair = repair;
        p->n++;
    }
}

static void
plan_flat(const struct mc_plan_in *in, struct mc_plan *out)
{
    size_t left = in->budget - in->n;

    out->want = left < in->k_flat ? left : in->k_flat;
    add_slots(out, -1, 0, out->want);
}

static void
plan_effi(const struct mc_plan_in *in, struct mc_plan *out)
{
    /* Odd positions refine (or repair) the previous node; even ones
     * start a new path from the original. */
    int parent = in->n % 2 == 1 ? (int)in->n - 1 : -1;

    add_slots(out, parent, parent >= 0 && !in->nodes[parent].correct, 1);
    out->want = 1;
}

static void
plan_rounds(const struct mc_plan_in *in, struct mc_plan *out)
{
    size_t kk = in->budget < in->k ? in->budget : in->k;
    size_t round_start = in->n - in->n % kk, left = in->budget - in->n, j;
    int any_correct = 0;

    out->want = kk - (in->n - round_start);
    if (out->want > left)
        out->want = left;
    for (j = round_start >= kk ? round_start - kk : 0; j < round_start; j++)
        any_correct |= in->nodes[j].correct;
    if (round_start >= kk && !any_correct) {
        /* Repair the previous round's candidates, one each. */
        for (j = round_start - kk; j < round_start; j++)
            add_slots(out, (int)j, 1, 1);
        return;
    }
    add_slots(out, in->ranker->pick(in->ranker, in->nodes, in->n), 0,
              out->want);
}

/* The registry: one row per strategy. */
static const struct mc_strategy strategies[] = {
    {"flat", "reward", plan_flat},
    {"effi-learner", "reward", plan_effi},
    {"cuda-llm", "reward", plan_rounds},
    {"gvf", "gvf", plan_rounds},
};

const struct mc_strategy *
mc_strategy_find(const char *name)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(strategies); i++)
        if (!strcmp(strategies[i].name, name))
            return &strategies[i];
    return NULL;
}

const char *
mc_strategy_name(size_t i)
{
    return i < MC_ARRAY_SIZE(strategies) ? strategies[i].name : NULL;
}

void
mc_strategy_plan(const struct mc_strategy *s, const struct mc_plan_in *in,
                 struct mc_plan *out)
{
    size_t left = in->budget - in->n;

    memset(out, 0, sizeof(*out));
    s->plan(in, out);
    if (out->want > out->n)
        out->want = out->n;
    if (out->want > left)
        out->want = left;
}
