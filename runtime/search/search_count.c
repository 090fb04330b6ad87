/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_count.c: the search's counters, counted at once so that a
 * killed search's work shows in `maxcode stats`: each judged candidate,
 * and each batch of model requests with its tokens and cost, through
 * S->count or else in the cache at S->cache_dir. See search.h.
 */
#include "mc_setup.h"
#include "search_int.h"
#include "proposer.h"
#include "value.h"

/* Count D at once: through S->count, or else in the cache at
 * S->cache_dir. */
static void
count(struct mc_search *s, const struct mc_stats *d)
{
    struct mc_cache c;

    if (s->count) {
        s->count(s->count_arg, d);
        return;
    }
    if (s->cache_dir && mc_cache_init(&c, s->cache_dir, NULL) == MC_OK) {
        mc_cache_stats_add(&c, d, NULL);
        mc_cache_release(&c);
    }
}

void
mc_search_count_candidate(struct mc_search *s)
{
    struct mc_stats d;

    s->evaluated++;
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_CANDIDATES] = 1;
    count(s, &d);
}

struct mc_llm_usage
mc_search_cost(const struct mc_search *s)
{
    struct mc_usage u = MC_USAGE_INIT, v = MC_USAGE_INIT;

    if (s->prop->cost)
        s->prop->cost(s, &u);
    if (s->valuer && s->valuer->cost)
        s->valuer->cost(s->valuer_state, &v);
    u.total.requests += v.total.requests;
    u.total.tokens_in += v.total.tokens_in;
    u.total.tokens_out += v.total.tokens_out;
    u.total.cost += v.total.cost;
    return u.total;
}

void
mc_search_count_cost(struct mc_search *s, const struct mc_llm_usage *before)
{
    struct mc_llm_usage now = mc_search_cost(s);
    struct mc_stats d;

    if (now.requests == before->requests)
        return;
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_LLM_REQUESTS] = now.requests - before->requests;
    d.n[MC_STAT_TOKENS_IN] = now.tokens_in - before->tokens_in;
    d.n[MC_STAT_TOKENS_OUT] = now.tokens_out - before->tokens_out;
    d.cost = now.cost - before->cost;
    count(s, &d);
}
