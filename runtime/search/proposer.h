/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proposer.h: the proposer interface, the policy of the search. Given
 * the search's state (its nodes: each parent's code, feedback, critique
 * and trajectory, and the best so far) and a plan (strategy.h), a
 * proposer writes the round's candidate codes; once the executor has
 * judged them it writes their critiques; and it says what it has cost.
 * A proposer is a row of operations (STYLE 5a); the loop in search.c
 * never names a concrete one.
 *
 *   builtin  compiler-guided knob sets (builtin.h), no model; K = 4;
 *            flat proposals one at a time, each learning from the last;
 *            a rule-based critique as soon as a candidate is judged
 *   llm      the model's policy and critic (proposer_llm.c); K = 8 as
 *            in the paper; flat proposals 8 at a time; a round's
 *            critic calls go out together; max-tokens and max-cost
 *
 * A new proposer is one file defining one `const struct mc_proposer`
 * and one row in the registry (proposer.c), where its extern line sits
 * beside the row. Its name is then a proposer= value (the settings
 * table asks the registry) and its identity operation puts what its
 * output depends on into the content key.
 */
#ifndef MC_PROPOSER_H
#define MC_PROPOSER_H

#include "buf.h"
#include "hash.h"
#include "status.h"
#include "strategy.h"
#include "target.h"
#include "usage.h"

struct mc_search;

/* One candidate for the executor. */
struct mc_proposal {
    int parent;            /* a node's index, or -1: the original */
    unsigned long tag;     /* the proposer's note (journaled), or 0 */
    char *label;           /* owned: "O3+unroll(4)", "llm#3" */
    struct mc_buf code;    /* the whole source */
    int rejected;          /* no code to judge (verdict rejected) */
    int sanitize;          /* judge with the sanitizers whatever
                            * sanitize= says (a source rewrite) */
    char *detail;          /* owned: why it was rejected, or NULL */
    char *repeats;         /* owned: the proposals this one replaced,
                            * as node.h's "repeats", or NULL */
};

/* A round's candidates. */
struct mc_proposals {
    struct mc_proposal v[MC_PLAN_MAX];
    size_t n;
};

/*
 * The operations. S is the search (search.h); the proposer keeps its own
 * state in S->prop_state. Only NAME, K, K_FLAT, IDENTITY, INIT,
 * RELEASE, PROPOSE and CRITIQUE are required; a NULL operation does
 * nothing.
 */
struct mc_proposer {
    const char *name;      /* the proposer= value; the journal's */
    size_t k;              /* K: the proposals of a round (cuda-llm) */
    size_t k_flat;         /* the proposals of a round of strategy=flat */
    /* 1: a round's candidates are all judged, then criticised together;
     * the time limit is checked between rounds. 0: each is criticised
     * and journaled as soon as it is judged, the time limit checked
     * between candidates. */
    int critique_together;

    /*
     * Add to H, the content key of target T, what the proposer's output
     * depends on beyond the options (every option's value is hashed
     * already): its name and version where they are not implied, the
     * model's API, the critic model, the prompt version V->prompt_version
     * (key.h), ... A proposer whose output changes (another prompt,
     * another knob table) changes what it hashes here, so that the
     * entries of the old one are not served.
     */
    void (*identity)(const struct mc_target *t,
                     const struct mc_key_versions *v, struct mc_hash *h);
    /* Non-zero when proposer=auto takes this proposer for T (its
     * endpoint is configured, ...); auto takes the first proposer of the
     * registry that says so. NULL: auto never takes it. */
    int (*automatic)(const struct mc_target *t);
    /* Set up S->prop_state for S (S->t, S->ev, S->key set). On failure
     * RELEASE still runs. */
    enum mc_code (*init)(struct mc_search *s, struct mc_err *err);
    /* Free S->prop_state (which may be NULL) and what INIT set up. */
    void (*release)(struct mc_search *s);
    /*
     * Write PLAN->want candidates (fewer when the slots run dry or
     * requests fail) into OUT (empty; the caller releases it). No
     * candidate stops the search: the proposer says why, in the log or
     * in S->reason (with S->endpoint_failed).
     */
    enum mc_code (*propose)(struct mc_search *s, const struct mc_plan *plan,
                            struct mc_proposals *out, struct mc_err *err);
    /* Write the critique of the N judged nodes from FIRST. */
    void (*critique)(struct mc_search *s, size_t first, size_t n);
    /* Node I, the last of S->n, was read back from the journal: learn
     * from it as if it had just been judged. */
    void (*replay)(struct mc_search *s, size_t i);
    /* Non-zero when the proposer's own budget (max-tokens, max-cost) is
     * spent: the search stops before the next round. */
    int (*spent)(struct mc_search *s);
    /* What the proposer has cost so far, as a view into U (usage.h);
     * returns 0 when it has no cost (U untouched). */
    int (*cost)(const struct mc_search *s, struct mc_usage *u);
    /* Take the cost read back from the journal, moving U's models. */
    void (*restore)(struct mc_search *s, struct mc_usage *u);
    /* The search keeps node S->best: remember what won, for the next
     * searches of this cache. */
    void (*settled)(struct mc_search *s);
    /* Append to REASON why the proposer stopped the search, if it did:
     * "; the model budget (max-cost) stopped the search". */
    void (*explain)(const struct mc_search *s, struct mc_buf *reason);
};

/* The proposer called NAME, or NULL when there is none. */
const struct mc_proposer *mc_proposer_find(const char *name);

/* mc_proposer_name() (declared in conf.h, defined in proposer.c): the
 * values proposer= takes, the registry's names in order, then "auto". */

/*
 * The proposer that writes T's variants: the registry's row named by
 * proposer=, or for proposer=auto the first row whose AUTOMATIC says yes
 * for T. NULL when proposer= names no row (the settings table refuses
 * such a name where it is given, so only a target built around the
 * checks sees NULL). mc_target_proposer() (target.h) is its name.
 */
const struct mc_proposer *mc_proposer_of(const struct mc_target *t);

void mc_proposals_init(struct mc_proposals *p);
/* Free the labels, codes and details of P's candidates; P is empty. */
void mc_proposals_release(struct mc_proposals *p);

#endif /* MC_PROPOSER_H */
