/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-search.c: the reason a search's fallback is counted under
 * (mc_fallback_reason_of()), for each outcome, built as plain nodes:
 * no device, no search, no model, a budget that cut the search short
 * (the time limit, or the proposer's own as its explain() says), no
 * speedup, incorrect candidates, candidates that did not build.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "search.h"
#include "tap.h"

static int capped;

/* A proposer whose budget stopped the search when CAPPED is set. */
static void
fake_explain(const struct mc_search *s, struct mc_buf *reason)
{
    (void)s;
    if (capped)
        mc_buf_adds(reason, "; the model budget (max-tokens) stopped the "
                            "search");
}

static const struct mc_proposer fake = {.name = "fake",
                                        .explain = fake_explain};

/* S with N judged nodes of BUDGET, each compiled (unless COMPILE_ERROR)
 * and CORRECT as given. */
static void
setup(struct mc_search *s, struct mc_search_node *nodes, size_t n,
      size_t budget, int compile_error, int correct)
{
    size_t i;

    memset(s, 0, sizeof(*s));
    s->prop = &fake;
    s->budget = budget;
    s->best = -1;
    s->nodes = nodes;
    s->n = n;
    for (i = 0; i < n; i++) {
        memset(&nodes[i], 0, sizeof(nodes[i]));
        nodes[i].parent = -1;
        nodes[i].compile_error = compile_error;
        nodes[i].correct = correct;
        if (correct)
            nodes[i].verdict = MC_VERDICT_CORRECT;
        else if (compile_error)
            nodes[i].verdict = MC_VERDICT_COMPILE_ERROR;
        else
            nodes[i].verdict = MC_VERDICT_INCORRECT;
        nodes[i].speedup = correct ? 1.01 : 0;
        nodes[i].reward = nodes[i].speedup;
    }
    capped = 0;
}

static void
test_search__fallback_reasons(void)
{
    struct mc_search s;
    struct mc_search_node nodes[4];

    setup(&s, nodes, 4, 4, 0, 1);
    is_long(mc_fallback_reason_of(&s, 1), MC_STAT_FALLBACK_NO_DEVICE,
            "no device comes first");
    is_long(mc_fallback_reason_of(NULL, 0), MC_STAT_FALLBACK_OTHER,
            "no search: other");
    s.endpoint_failed = 1;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_MODEL,
            "the endpoint failed: no model");
    setup(&s, nodes, 4, 4, 0, 1);
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_SPEEDUP,
            "correct but not faster: no speedup");
    setup(&s, nodes, 4, 4, 0, 0);
    nodes[2].compile_error = 1;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_INCORRECT,
            "built, none correct: incorrect");
    setup(&s, nodes, 4, 4, 1, 0);
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_BUILD,
            "none built: does not build");
    setup(&s, nodes, 0, 4, 0, 0);
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_SPEEDUP,
            "nothing to try: no speedup");
}

static void
test_search__budget_cuts_short(void)
{
    struct mc_search s;
    struct mc_search_node nodes[2];

    setup(&s, nodes, 2, 8, 0, 0);
    capped = 1;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_BUDGET,
            "max-tokens stopped it before budget=: budget");
    setup(&s, nodes, 2, 2, 0, 0);
    capped = 1;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_INCORRECT,
            "capped only after budget= candidates: not the budget");
    setup(&s, nodes, 2, 8, 0, 1);
    s.time_limit_s = 60;
    s.loop_s = 61;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_BUDGET,
            "MAXCODE_TIME_LIMIT reached: budget");
    s.loop_s = 30;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_SPEEDUP,
            "stopped before the limit (nothing new): no speedup");
    s.time_limit_s = 0;
    s.loop_s = 1e6;
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_SPEEDUP,
            "no time limit set: never the budget");
}

int
main(void)
{
    TAP_RUN(test_search__fallback_reasons);
    TAP_RUN(test_search__budget_cuts_short);
    return tap_done();
}
