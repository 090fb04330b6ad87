/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: the max-reward loop. A round asks the strategy for a plan,
 * the proposer for codes, the executor for feedback and the proposer
 * for critiques; each node is journaled as it settles; the best
 * confirmed node is confirmed once more at the end. See search.h. The
 * rewards, the counters and the progress lines are the search's other
 * parts (search_reward.c, search_count.c, search_progress.c).
 */
#include "mc_setup.h"
#include "search.h"
#include "alloc.h"
#include "journal.h"
#include "log.h"
#include "proposer.h"
#include "ranker.h"
#include "search_int.h"
#include "spawn.h"
#include "strategy.h"
#include "value.h"

#include <ctype.h>

/* ---- nodes ---- */

/* A new node from proposal P, taking its label, code and detail. */
static struct mc_search_node *
add_node(struct mc_search *s, struct mc_proposal *p)
{
    struct mc_search_node *nd;

    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        nd = mc_realloc(s->nodes, cap * sizeof(*nd));
        if (!nd)
            return NULL;
        s->nodes = nd;
        s->cap = cap;
    }
    nd = &s->nodes[s->n];
    mc_search_node_init(nd);
    nd->parent = p->parent;
    nd->depth = p->parent >= 0 ? s->nodes[p->parent].depth + 1 : 1;
    nd->tag = p->tag;
    nd->label = p->label;
    p->label = NULL;
    nd->detail = p->detail;
    p->detail = NULL;
    nd->repeats = p->repeats;
    p->repeats = NULL;
    nd->code = p->code;
    mc_buf_init(&p->code);
    nd->verdict = MC_VERDICT_REJECTED;
    s->n++;
    return nd;
}

/* ---- set-up ---- */

enum mc_code
mc_search_init(struct mc_search *s, struct mc_target *t, struct mc_eval *ev,
               const char *key, const char *journal, const char *cache_dir,
               struct mc_err *err)
{
    return mc_search_init_with(s, NULL, t, ev, key, journal, cache_dir, err);
}

enum mc_code
mc_search_init_with(struct mc_search *s, const struct mc_proposer *prop,
                    struct mc_target *t, struct mc_eval *ev, const char *key,
                    const char *journal, const char *cache_dir,
                    struct mc_err *err)
{
    const char *proposer = mc_target_proposer(t);

    memset(s, 0, sizeof(*s));
    mc_buf_init(&s->reason);
    mc_buf_init(&s->ranking_note);
    mc_buf_init(&s->final_why);
    s->t = t;
    s->ev = ev;
    s->key = key;
    s->cache_dir = cache_dir;
    s->best = -1;
    s->strategy = mc_target_get(t, MC_OPT_STRATEGY);
    s->budget = (size_t)atol(mc_target_get(t, MC_OPT_BUDGET));
    s->gamma = atof(mc_conf_get(&t->conf, MC_SET_GAMMA));
    s->time_limit_s = atof(mc_conf_get(&t->conf, MC_SET_TIME_LIMIT));
    s->journal = mc_strdup(journal);
    if (!s->journal)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    s->strat = mc_strategy_find(s->strategy);
    if (!s->strat)
        return mc_err_set(err, MC_ECONFIG, "unknown strategy '%s'",
                          s->strategy);
    s->ranker = mc_ranker_find(s->strat->ranker);
    if (!s->ranker)
        return mc_err_set(err, MC_EINTERNAL, "strategy '%s': no ranker '%s'",
                          s->strategy, s->strat->ranker);
    if (mc_bins_parse(mc_target_get(t, MC_OPT_BINS), &s->bins, err))
        return MC_ECONFIG;
    s->prop = prop ? prop : mc_proposer_find(proposer);
    if (!s->prop)
        return mc_err_set(err, MC_ECONFIG, "unknown proposer '%s'",
                          proposer);
    if (mc_ranker_values(s->ranker) && mc_value_open(s))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return s->prop->init(s, err);
}

void
mc_search_release(struct mc_search *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        mc_search_node_release(&s->nodes[i]);
    mc_free(s->nodes);
    mc_free(s->journal);
    if (s->prop)
        s->prop->release(s);
    mc_value_close(s);
    mc_buf_release(&s->reason);
    mc_buf_release(&s->ranking_note);
    mc_buf_release(&s->final_why);
    memset(s, 0, sizeof(*s));
}

/* ---- the journal ---- */

static void
journal_head(const struct mc_search *s, struct mc_journal_head *h)
{
    h->key = s->key;
    h->strategy = s->strategy;
    h->proposer = s->prop->name;
    h->budget = s->budget;
}

/* Read the journal back, the proposer learning from each node again; start
 * a new one when there is none (or it is another search's). */
static enum mc_code
resume(struct mc_search *s, struct mc_err *err)
{
    struct mc_journal_head h;
    struct mc_journal_log log;
    enum mc_code rc;
    size_t i;

    journal_head(s, &h);
    mc_journal_log_init(&log);
    rc = mc_journal_read(s->journal, &h, s->budget, &log, err);
    if (rc)
        goto out;
    if (!log.matched) {
        rc = mc_journal_start(s->journal, &h, err);
        goto out;
    }
    s->nodes = log.nodes;
    s->cap = log.cap;
    for (i = 0; i < log.n; i++) {
        s->n = i + 1;
        /* The rewards again from the verdicts: a journal of an older
         * version has no f_r or u_t. */
        mc_search_set_reward(s, &s->nodes[i]);
        if (s->prop->replay)
            s->prop->replay(s, i);
        mc_search_update_best(s, i);
    }
    log.nodes = NULL;
    log.n = log.cap = 0;
    if (s->n && s->prop->restore)
        s->prop->restore(s, &log.usage);
    if (s->n && s->valuer && s->valuer->restore)
        s->valuer->restore(s->valuer_state, &log.value_usage);
    s->resumed = s->n;
    if (s->resumed)
        mc_info("%s: resumed from the journal: %zu of %zu candidates "
                "already evaluated", s->t->source, s->resumed, s->budget);
out:
    mc_journal_log_release(&log);
    return rc;
}

/* ---- one candidate ---- */

/* Judge CODE with the executor: S->exec, or mc_eval_candidate(). */
static enum mc_code
execute(struct mc_search *s, const struct mc_buf *code, int sanitize,
        struct mc_feedback *fb, struct mc_err *err)
{
    if (s->exec)
        return s->exec(s->exec_ctx, code->s, code->len, sanitize, fb, err);
    return mc_eval_candidate(s->ev, code->s, code->len, sanitize, 1, fb,
                             err);
}

/* Judge node I's code with the executor (SANITIZE: also the ASan+UBSan
 * run) and fill in its verdict, speedup, reward and detail. */
static enum mc_code
judge(struct mc_search *s, size_t i, int sanitize, struct mc_err *err)
{
    struct mc_search_node *nd = &s->nodes[i];
    struct mc_feedback fb;
    enum mc_code rc;

    mc_feedback_init(&fb);
    rc = execute(s, &nd->code, sanitize, &fb, err);
    if (rc) {
        mc_feedback_release(&fb);
        return rc;
    }
    mc_search_count_candidate(s);
    nd = &s->nodes[i];
    nd->verdict = fb.verdict;
    nd->correct = fb.correct;
    nd->compile_error = fb.verdict == MC_VERDICT_COMPILE_ERROR;
    nd->confirmed = fb.timing.confirmed;
    nd->speedup = !fb.correct       ? 0
                  : nd->confirmed ? fb.timing.confirmed_speedup
                                  : fb.timing.median;
    mc_search_set_reward(s, nd);
    nd->detail = mc_strdup(fb.detail.s);
    nd->load_rounds = fb.timing.rounds;
    memcpy(nd->load, fb.timing.load, sizeof(nd->load));
    nd->load_changed = fb.timing.load_changed;
    mc_feedback_release(&fb);
    return MC_OK;
}

int
mc_search_same_code(const char *a, const char *b)
{
    for (;;) {
        int sa = 0, sb = 0;

        for (; isspace((unsigned char)*a); a++)
            sa = 1;
        for (; isspace((unsigned char)*b); b++)
            sb = 1;
        if (!*a || !*b)
            return !*a && !*b;
        if (sa != sb || *a != *b)
            return 0;
        a++;
        b++;
    }
}

/* The first judged node before I whose code is node I's but for
 * whitespace, or -1. */
static int
earlier_same(const struct mc_search *s, size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (s->nodes[j].verdict != MC_VERDICT_REJECTED &&
            s->nodes[j].duplicate_of < 0 && s->nodes[j].code.s &&
            mc_search_same_code(s->nodes[j].code.s, s->nodes[i].code.s))
            return (int)j;
    return -1;
}

/* Node I repeats node J's code: it takes J's judgement, built and run
 * once, and is marked so. Judging the same code again would only add
 * the machine's noise to the search (the model was paid for it, so it
 * still counts against the budget). */
static enum mc_code
take_duplicate(struct mc_search *s, size_t i, int j, struct mc_err *err)
{
    struct mc_search_node *nd = &s->nodes[i];
    const struct mc_search_node *o = &s->nodes[j];
    struct mc_buf why = MC_BUF_INIT;

    mc_search_count_candidate(s);
    nd->duplicate_of = j;
    nd->verdict = o->verdict;
    nd->correct = o->correct;
    nd->compile_error = o->compile_error;
    nd->confirmed = o->confirmed;
    nd->speedup = o->speedup;
    mc_search_set_reward(s, nd);
    mc_buf_addf(&why, "the same code as candidate %d (but for whitespace): "
                "its judgement, not built or run again%s%s", j + 1,
                o->detail && *o->detail ? "; " : "",
                o->detail ? o->detail : "");
    mc_free(nd->detail);
    nd->detail = mc_buf_detach(&why, NULL);
    return nd->detail ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory");
}

/* Proposal P becomes the last node, judged; a rejected one (no code) is
 * counted and not run, and one that repeats an earlier node's code
 * takes that node's judgement. */
static enum mc_code
take(struct mc_search *s, struct mc_proposal *p, struct mc_err *err)
{
    struct mc_search_node *nd = add_node(s, p);
    int same;

    if (!nd)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (p->rejected) {
        mc_search_count_candidate(s);
        mc_search_set_reward(s, nd);
        return MC_OK;
    }
    if (!p->sanitize && (same = earlier_same(s, s->n - 1)) >= 0)
        return take_duplicate(s, s->n - 1, same, err);
    return judge(s, s->n - 1,
                 p->sanitize ||
                     !strcmp(mc_target_get(s->t, MC_OPT_SANITIZE), "1"),
                 err);
}

/* The proposer's critiques of the N nodes from FIRST, then their values
 * (strategy=gvf), counting what they cost. */
static void
critique(struct mc_search *s, size_t first, size_t n)
{
    struct mc_llm_usage before = mc_search_cost(s);

    s->prop->critique(s, first, n);
    mc_value_score(s, first, n);
    mc_search_count_cost(s, &before);
}

/* Node I is complete: the best so far, the journal, the progress line. */
static void
settle(struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];
    struct mc_usage u = MC_USAGE_INIT, v = MC_USAGE_INIT;
    int costs = s->prop->cost && s->prop->cost(s, &u);
    int vcosts = s->valuer && s->valuer->cost &&
                 s->valuer->cost(s->valuer_state, &v);
    double now = mc_spawn_clock();

    mc_search_update_best(s, i);
    mc_journal_append(s->journal, nd, costs ? &u : NULL,
                      vcosts ? &v : NULL);
    /* The first candidate's time holds one-time costs (the proposer's
     * compiler probes, the profile); a batch settles at once. */
    if (!s->first_settled)
        s->first_settled = now;
    if (now - s->first_settled < 0.05)
        s->first_batch++;
    mc_search_progress(s, i);
}

/* ---- the loop ---- */

static int
out_of_time(const struct mc_search *s, double start)
{
    return s->time_limit_s > 0 &&
           mc_spawn_clock() - start >= s->time_limit_s;
}

/* The strategy's plan for the next round, into PLAN. */
static enum mc_code
plan_round(const struct mc_search *s, struct mc_plan *plan,
           struct mc_err *err)
{
    struct mc_prop_node *view = mc_search_view(s);
    struct mc_plan_in in;

    if (!view)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    in.nodes = view;
    in.n = s->n;
    in.budget = s->budget;
    in.k = s->prop->k;
    in.k_flat = s->prop->k_flat;
    in.ranker = s->ranker;
    mc_strategy_plan(s->strat, &in, plan);
    mc_free(view);
    return MC_OK;
}

/*
 * One round: plan, propose, judge, criticise, settle. *STOP is set when
 * the proposer had nothing to propose or the time ran out between
 * candidates.
 */
static enum mc_code
run_round(struct mc_search *s, double start, int *stop, struct mc_err *err)
{
    const struct mc_proposer *p = s->prop;
    struct mc_proposals props;
    struct mc_plan plan;
    struct mc_llm_usage before;
    size_t i, first = s->n;
    enum mc_code rc;

    mc_proposals_init(&props);
    rc = plan_round(s, &plan, err);
    if (rc)
        goto out;
    before = mc_search_cost(s);
    rc = p->propose(s, &plan, &props, err);
    mc_search_count_cost(s, &before);
    if (rc)
        goto out;
    if (!props.n)
        *stop = 1;
    for (i = 0; i < props.n && s->n < s->budget; i++) {
        if (!p->critique_together && out_of_time(s, start)) {
            *stop = 1;
            break;
        }
        rc = take(s, &props.v[i], err);
        if (rc)
            goto out;
        if (!p->critique_together) {
            critique(s, s->n - 1, 1);
            settle(s, s->n - 1);
        }
    }
    if (p->critique_together) {
        critique(s, first, s->n - first);
        for (i = first; i < s->n; i++)
            settle(s, i);
    }
out:
    mc_proposals_release(&props);
    return rc;
}

/* Confirm the best node once more before it is the answer: the
 * executor's rounds go on while their interval is too wide to state the
 * median (struct mc_eval's tight), and a figure still that wide is
 * stated as its lower bound. It is kept when the figure stated is at
 * least MIN_SPEEDUP: the confirmed median, or where the interval is that
 * wide its lower bound (a kept variant never states less than
 * min-speedup). */
static enum mc_code
confirm(struct mc_search *s, double min_speedup, struct mc_err *err)
{
    struct mc_search_node *b = &s->nodes[s->best];
    const struct mc_timing *t;
    struct mc_feedback fb;
    enum mc_code rc;

    mc_feedback_init(&fb);
    if (s->ev)
        s->ev->tight = 1;
    rc = execute(s, &b->code, 0, &fb, err);
    if (s->ev)
        s->ev->tight = 0;
    if (rc)
        goto out;
    t = &fb.timing;
    s->final_rounds = t->rounds;
    memcpy(s->final_load, t->load, sizeof(s->final_load));
    if (fb.correct && t->confirmed && t->confirmed_speedup >= min_speedup) {
        s->final_median = t->confirmed_speedup;
        s->final_low = t->confirmed_low;
        s->final_high = t->confirmed_high;
        s->final_bound = mc_eval_state(s->final_median, s->final_low,
                                       s->final_high, &s->final_speedup);
        if (s->final_bound)
            mc_eval_state_why(t->cand_s, &s->final_why);
        if (mc_buf_status(&s->final_why))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        if (!rc && s->final_bound && s->final_speedup < min_speedup) {
            /* What would be stated is below what a variant must give:
             * the original, and why. */
            mc_buf_addf(&s->reason, "the best variant (%s) held at "
                        "%.2fx, but its interval [%.2fx, %.2fx] is too "
                        "wide to state more than %.2fx, below min-speedup "
                        "%.2f (%s)", b->label, s->final_median,
                        s->final_low, s->final_high, s->final_speedup,
                        min_speedup, s->final_why.s);
            s->final_speedup = 0;
        }
    } else
        mc_buf_addf(&s->reason, "the best variant (%s, %.2fx) did not "
                    "hold in the final confirmation (%s, %.2fx)", b->label,
                    b->speedup, mc_verdict_name(fb.verdict),
                    fb.timing.median);
out:
    mc_feedback_release(&fb);
    return rc;
}

enum mc_code
mc_search_run(struct mc_search *s, struct mc_err *err)
{
    double start = mc_spawn_clock(), min_speedup;
    double child_start = mc_spawn_children_seconds();
    enum mc_code rc;
    int stop = 0;

    s->started = start;
    rc = resume(s, err);
    if (!rc && s->n < s->budget)
        mc_info("%s: searching: budget %zu, strategy %s, proposer %s%s%s",
                s->t->source, s->budget, s->strategy, s->prop->name,
                s->ranking ? ", ranking " : "", s->ranking ? s->ranking : "");
    while (!rc && s->n < s->budget && !s->endpoint_failed && !stop) {
        if (out_of_time(s, start)) {
            mc_info("%s: MAXCODE_TIME_LIMIT (%.0f s) reached after %zu "
                    "candidates", s->t->source, s->time_limit_s, s->n);
            break;
        }
        if (s->prop->spent && s->prop->spent(s))
            break;
        rc = run_round(s, start, &stop, err);
    }
    s->loop_s = mc_spawn_clock() - start;
    min_speedup = atof(mc_target_get(s->t, MC_OPT_MIN_SPEEDUP));
    if (!rc && s->best < 0) {
        mc_fallback_explain(s, min_speedup);
    } else if (!rc) {
        rc = confirm(s, min_speedup, err);
        if (!rc && s->final_speedup > 0 && s->prop->settled)
            s->prop->settled(s);
    }
    s->seconds = mc_spawn_clock() - start;
    s->child_seconds = mc_spawn_children_seconds() - child_start;
    return rc;
}
