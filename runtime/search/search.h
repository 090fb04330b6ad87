/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.h: the max-reward search (MaxCode): the loop and its nodes.
 * Each node holds a candidate's code, its feedback, its critique, its
 * reward and u:
 *   reward = the confirmed speedup when the candidate is correct and its
 *            win holds beyond the noise, its measured median speedup when
 *            it is correct but not promoted, 0 when it is not correct;
 *   u      = the best discounted reward on the node's path,
 *            u(n) = max(u(parent), gamma^depth * reward(n)), gamma = 1
 *            unless MAXCODE_GAMMA says otherwise.
 * The answer is the best confirmed node ever seen, not the last; it is
 * confirmed once more before it is stored, and the original is kept,
 * with a reason naming the best speedup found, when it does not beat
 * min-speedup.
 *
 * Each round the loop asks the strategy for a plan (strategy.h: which
 * parents to expand, which failed nodes to repair), the proposer for
 * codes (proposer.h: builtin or llm), the executor (S->exec, by default
 * mc_eval_candidate()) for feedback and the proposer again for
 * critiques, and journals each
 * node (journal.h: .maxcode/<key>/journal.jsonl, resumed exactly). It
 * stops at the budget B (exact), the time limit, the proposer's own
 * budget (max-tokens, max-cost), an endpoint failure, or when the
 * proposer has nothing new to try.
 *
 * Counters: each judged candidate, and each batch of model requests, is
 * counted at once (a killed search's work shows) through S->count; when
 * it is NULL, in the cache at the cache directory given to
 * mc_search_init().
 */
#ifndef MC_SEARCH_H
#define MC_SEARCH_H

#include "buf.h"
#include "cache.h"
#include "eval.h"
#include "llm.h"
#include "builtin.h"
#include "node.h"
#include "rollout.h"
#include "target.h"

struct mc_proposer;
struct mc_valuer;
struct mc_strategy;
struct mc_ranker;

/*
 * The executor: judge TEXT (LEN bytes), as mc_eval_candidate() does with
 * timing, into FB (initialised; the caller releases it); SANITIZE adds
 * the ASan+UBSan run. CTX is the caller's. The search judges each new
 * candidate and confirms the best through it; tests give a fake that
 * returns scripted feedback (tests/unit/test-search-loop.c).
 */
typedef enum mc_code mc_search_exec_fn(void *ctx, const char *text,
                                       size_t len, int sanitize,
                                       struct mc_feedback *fb,
                                       struct mc_err *err);

struct mc_search {
    struct mc_target *t;
    struct mc_eval *ev;
    mc_search_exec_fn *exec;          /* judges candidates; NULL:
                                       * mc_eval_candidate() on EV
                                       * (tests inject a fake) */
    void *exec_ctx;                   /* EXEC's own */
    const struct mc_proposer *prop;   /* writes the candidates */
    void *prop_state;                 /* the proposer's own */
    const struct mc_strategy *strat;  /* plans the rounds */
    const struct mc_ranker *ranker;   /* picks the node to expand */
    const struct mc_valuer *valuer;   /* strategy=gvf: scores nodes */
    void *valuer_state;               /* the value model's own */
    const char *ranking;      /* gvf: "served", "built-in" or "reward";
                               * NULL for the other strategies */
    struct mc_buf ranking_note; /* why "reward" (gvf), or empty */
    struct mc_bins bins;      /* bins= */
    /* Set by the llm proposer, read by the manifest writer: */
    int use_llm;              /* the model writes the variants */
    struct mc_llm llm;        /* when use_llm: the client and its usage */
    const char *critic_model;
    int endpoint_failed;      /* the endpoint stopped the search */
    const char *key;
    const char *cache_dir;    /* the default counters' cache, or NULL */
    /* The counters' callback: D holds the increments. */
    void (*count)(void *arg, const struct mc_stats *d);
    void *count_arg;
    const char *strategy;
    size_t budget;
    double gamma, time_limit_s;
    char *journal;            /* path */
    struct mc_search_node *nodes;
    size_t n, cap;
    size_t resumed;           /* nodes read back from the journal */
    size_t evaluated;         /* nodes evaluated by this run */
    int best;                 /* index of the best confirmed node, or -1 */
    double final_speedup;     /* the figure stated after the last
                               * confirmation (final_median, or
                               * final_low when final_bound), or 0 */
    double final_median;      /* the confirmed speedup: the worse of
                               * its rounds' medians */
    double final_low, final_high; /* its rounds' 99% interval */
    int final_bound;          /* the interval is too wide to state the
                               * median: final_speedup is final_low
                               * (mc_eval_state()), */
    struct mc_buf final_why;  /* and why, else empty */
    size_t final_rounds;      /* the final confirmation's rounds, */
    struct mc_load_round final_load[MC_TIMING_ROUNDS]; /* and the load
                               * around each (manifest "load") */
    double started, seconds;  /* this run's start (mc_spawn_clock) and
                               * time spent */
    double child_seconds;     /* of that, the time its compiles and runs
                               * took (mc_spawn_children_seconds()) */
    double loop_s;            /* seconds the loop ran (the time limit's
                               * clock) */
    double first_settled;     /* when this run settled its first node
                               * (0: none yet), and how many it settled */
    size_t first_batch;       /* then: the pace of the time left counts
                               * from there, not the first's cost */
    struct mc_buf reason;     /* why the original is kept */
};

/*
 * Set S up for target T judged by EV (prepared), keyed KEY, with its
 * journal at JOURNAL; unless the caller sets S->count afterwards, each
 * evaluated candidate is counted at once in the cache at CACHE_DIR
 * (NULL: not counted). Reads the strategy, the proposer and the budget
 * from T's options. KEY and CACHE_DIR are borrowed for S's life. On
 * failure, S is still to be released. MC_ECONFIG (with
 * S->endpoint_failed) when proposer=llm has no endpoint.
 */
enum mc_code mc_search_init(struct mc_search *s, struct mc_target *t,
                            struct mc_eval *ev, const char *key,
                            const char *journal, const char *cache_dir,
                            struct mc_err *err);
/*
 * Like mc_search_init(), with the proposer PROP rather than the one T's
 * options name (NULL: that one); tests give a scripted proposer.
 */
enum mc_code mc_search_init_with(struct mc_search *s,
                                 const struct mc_proposer *prop,
                                 struct mc_target *t, struct mc_eval *ev,
                                 const char *key, const char *journal,
                                 const char *cache_dir, struct mc_err *err);
/* Free what S holds; S may be all zero. */
void mc_search_release(struct mc_search *s);

/*
 * Run the search to the budget or the time limit (resuming from the
 * journal), then confirm the answer. Afterwards S->best >= 0,
 * S->final_median >= min-speedup and S->final_speedup > 1 (the figure
 * to state: the median, or the interval's lower bound when the interval
 * is too wide, S->final_bound) when a variant won; otherwise S->reason
 * says why the original stays.
 */
enum mc_code mc_search_run(struct mc_search *s, struct mc_err *err);

/* The number of correct nodes. */
size_t mc_search_correct(const struct mc_search *s);

/* The correct node with the highest reward (the first of equals), or
 * -1 when none is correct. */
int mc_search_best_correct(const struct mc_search *s);

/* The reward of the best confirmed node, or 1 (the original's). */
double mc_search_best_reward(const struct mc_search *s);

/* SECONDS for people, in CAP bytes of OUT: "42s", "3m05s", "1h12m". */
void mc_search_duration(double seconds, char *out, size_t cap);

/* What the search's models have cost so far: the policy's requests,
 * tokens and cost, and the value model's. */
struct mc_llm_usage mc_search_cost(const struct mc_search *s);

/* Whether the codes A and B are the same text but for whitespace: each
 * run of spaces, tabs and newlines is one separator, and none counts at
 * either end. A repeat of a judged code is judged no more (search.c for
 * any proposer, proposer_builtin.c before it proposes one). */
int mc_search_same_code(const char *a, const char *b);

/* The plain view of S's nodes (S->n of them and one zeroed) that
 * strategies and proposers read; the caller frees it with mc_free().
 * NULL when out of memory. */
struct mc_prop_node *mc_search_view(const struct mc_search *s);

/*
 * The search's value model (search_value.c). mc_value_open() opens the
 * first of the registry (value.h) that is configured for S (strategy=gvf),
 * setting S->valuer and S->valuer_state, or none: S's ranking is then
 * "reward", with S->ranking_note saying why. Never fails the search;
 * MC_ENOMEM only.
 */
enum mc_code mc_value_open(struct mc_search *s);
void mc_value_close(struct mc_search *s);

/*
 * Score the N nodes of S from FIRST with S's value model, if any. A
 * model that fails is closed: S ranks by reward from then on, its
 * values dropped, and S->ranking_note says why.
 */
void mc_value_score(struct mc_search *s, size_t first, size_t n);

/* What S's value model reads of S, into V (valid until S's nodes grow). */
struct mc_value_view;
void mc_search_value_view(struct mc_search *s, struct mc_value_view *v);

/* ---- why the original stays after a search (search_fallback.c): the
 * reason for people, in the search's S->reason (the manifest's
 * "reason", the log), and the counter `maxcode stats` counts it under
 * (fallback_* in cache.h) ---- */
/*
 * No variant of search S won: append to S->reason why the original
 * stays: the best correct candidate and its speedup against MIN_SPEEDUP,
 * or that none was correct, then what the proposer says stopped it
 * (its explain()). Nothing when the endpoint failed (the reason already
 * says what failed).
 */
void mc_fallback_explain(struct mc_search *s, double min_speedup);

/*
 * The counter (MC_STAT_FALLBACK_*) of the reason the original is kept
 * after search S (NULL when no search ran), for `maxcode stats`; the
 * first that holds:
 *   NO_DEVICE  NO_DEVICE is set: a CUDA target on a machine without one;
 *   OTHER      no search ran (the original did not build or preprocess,
 *              the inputs changed while make ran, ...);
 *   NO_MODEL   the model endpoint is missing or failed;
 *   BUDGET     max-tokens, max-cost or MAXCODE_TIME_LIMIT stopped the
 *              search before budget= candidates;
 *   NO_SPEEDUP a correct candidate, none faster beyond min-speedup (or
 *              its confirmation failed), or nothing to try;
 *   INCORRECT  candidates built, none was correct;
 *   NO_BUILD   no candidate built.
 */
enum mc_stat mc_fallback_reason_of(const struct mc_search *s, int no_device);

#endif /* MC_SEARCH_H */
