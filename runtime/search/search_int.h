/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_int.h: what the parts of the search share, for them only: the
 * loop (search.c), the rewards (search_reward.c), the counters
 * (search_count.c) and the progress lines (search_progress.c). Other
 * modules include search.h.
 */
#ifndef MC_SEARCH_INT_H
#define MC_SEARCH_INT_H

#include "search.h"

/*
 * Set node ND's reward, u, f_r and u_t (search.h, rollout.h) from its
 * verdict and speedup, its depth and its parent's u and u_t, with S's
 * gamma and bins. ND's parent, if any, is already set.
 */
void mc_search_set_reward(struct mc_search *s, struct mc_search_node *nd);

/* Node I becomes S->best when it is confirmed and its reward is above
 * the best's (the first of equals stays). */
void mc_search_update_best(struct mc_search *s, size_t i);

/* Count one candidate of S at once (S->evaluated and the candidates
 * counter): judged, taken as a duplicate or rejected. */
void mc_search_count_candidate(struct mc_search *s);

/* Count at once what S's models cost since BEFORE (mc_search_cost()):
 * requests, tokens and cost; nothing when no request was made. */
void mc_search_count_cost(struct mc_search *s,
                          const struct mc_llm_usage *before);

/* Log node I's progress line (mc_info): its verdict and speedup, the best
 * so far, f_r, u_t and value, the time spent and left, and the first
 * line of its critique or detail. */
void mc_search_progress(const struct mc_search *s, size_t i);

#endif /* MC_SEARCH_INT_H */
