/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.h: the max-reward search (MaxCode). Each node holds a
 * candidate's code, its feedback, its critique, its reward and u:
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
 * Strategies (the budget B is exact):
 *   flat          B independent proposals from the original
 *   effi-learner  single paths of depth 2: a proposal from the original,
 *                 then its refinement (or repair) guided by the critique;
 *                 repeated until B candidates
 *   cuda-llm      K = min(4, B) proposals per round for D = ceil(B / K)
 *                 rounds (the last one cut to hit B): each round expands
 *                 the best correct node; when a round has no correct
 *                 node, the next repairs each failed candidate
 *   gvf           (value-model ranking) needs a model; runs as cuda-llm
 * With the model (proposer=llm) K is min(8, B), as in the paper, and the
 * K proposals of a round are requested together (as one request with n
 * under MAXCODE_LLM_N=1 when they share a prompt); flat asks for up to 8
 * at a time.
 *
 * The model-driven proposer sends one policy prompt per proposal
 * (prompt.h; fields best, critique and traj switched by the option
 * fields) and, after the round's candidates are judged, one critic call
 * per candidate (critique=off: none). A rejected answer (no code, cut
 * at max_tokens, blocks that do not fit the fences) is a candidate with
 * verdict rejected. A request that fails for good drops its proposal; a
 * fatal endpoint error (401, 403, 404, quota, bad URL) or a round whose
 * every request failed stops the search. max-tokens and max-cost stop
 * it before the next request once the totals reach them.
 *
 * Journal: .maxcode/<key>/journal.jsonl, written and resumed by
 * journal.c (its grammar is in journal.h). A node line is appended after
 * each evaluation; a search killed midway resumes from it without
 * evaluating any journaled candidate again.
 */
#ifndef MC_SEARCH_H
#define MC_SEARCH_H

#include "buf.h"
#include "eval.h"
#include "llm.h"
#include "propose.h"
#include "target.h"

struct mc_search_node {
    int parent, depth;
    unsigned long tag;
    char *label;
    struct mc_buf code;
    enum mc_verdict verdict;
    int correct, compile_error, confirmed;
    double speedup, reward, u;
    char *detail, *critique;
};

struct mc_search {
    struct mc_target *t;
    struct mc_eval *ev;
    struct mc_builtin builtin;
    int use_llm;              /* the model writes the variants */
    int fenced;               /* the source has begin/end regions */
    struct mc_llm llm;        /* when use_llm */
    const char *model, *critic_model;
    int field_best, field_critique, field_traj, critic_on;
    double max_tokens, max_cost; /* 0: no cap */
    int endpoint_failed;      /* the endpoint stopped the search */
    int capped;               /* max-tokens or max-cost stopped it */
    const char *key;
    const char *cache_dir;    /* counters: each candidate counts at once */
    const char *strategy;
    size_t budget;
    double gamma, time_limit_s;
    char *journal;            /* path */
    struct mc_search_node *nodes;
    size_t n, cap;
    size_t resumed;           /* nodes read back from the journal */
    size_t evaluated;         /* nodes evaluated by this run */
    int best;                 /* index of the best confirmed node, or -1 */
    double final_speedup;     /* after the last confirmation, or 0 */
    struct mc_buf reason;     /* why the original is kept */
};

/*
 * Set S up for target T judged by EV (prepared), keyed KEY, with its
 * journal at JOURNAL; each evaluated candidate is counted at once in the
 * cache at CACHE_DIR (NULL: not counted). Reads the strategy and budget
 * from T's options.
 */
enum mc_code mc_search_init(struct mc_search *s, struct mc_target *t,
                            struct mc_eval *ev, const char *key,
                            const char *journal, const char *cache_dir,
                            struct mc_err *err);
void mc_search_release(struct mc_search *s);

/*
 * Run the search to the budget or the time limit (resuming from the
 * journal), then confirm the answer. Afterwards S->best >= 0 and
 * S->final_speedup >= min-speedup when a variant won; otherwise
 * S->reason says why the original stays.
 */
enum mc_code mc_search_run(struct mc_search *s, struct mc_err *err);

/* The number of correct nodes. */
size_t mc_search_correct(const struct mc_search *s);

/* Set ND up as an empty node from the original; release it with
 * mc_search_node_release(). */
void mc_search_node_init(struct mc_search_node *nd);
void mc_search_node_release(struct mc_search_node *nd);

#endif /* MC_SEARCH_H */
