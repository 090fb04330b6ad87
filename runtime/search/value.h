/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * value.h: value models, which strategy=gvf ranks by (the paper's
 * generative value function). After the round's candidates are judged
 * and criticised, the value model scores each new node: its expected
 * reward bin (rollout.h), 0..4. The gvf ranker (ranker.h) then expands
 * the correct node with the highest value. A value model is a row of
 * operations (STYLE 5a); the registry in value.c is in order of
 * preference, the first that opens serves the search:
 *
 *   served    MAXCODE_GVF_URL: an OpenAI-compatible endpoint asked with
 *             logprobs for one of the tokens 0..4 (value_served.c); the
 *             value is sum q p(q) over the bins' tokens when the answer
 *             has logprobs, else the bin it answers; its requests and
 *             tokens are counted like the policy's
 *   built-in  the model that `maxcode gvf train` fitted on this cache's
 *             rollouts, CACHE_DIR/gvf/model (value_builtin.c,
 *             gvfmodel.h); with the built-in proposer it also orders
 *             the knobs to try next
 *
 * When none opens, or the one that did fails during the search (the
 * endpoint stops answering), the search ranks by measured reward, and
 * the manifest's "ranking" says which was used and why.
 */
#ifndef MC_VALUE_H
#define MC_VALUE_H

#include "buf.h"
#include "lang.h"
#include "status.h"
#include "usage.h"

struct mc_search_node;
struct mc_target;

/*
 * What a value model reads of a search, and where it writes its values:
 * the target, the key, the strategy and the nodes (their .value). The
 * search fills it (mc_search_value_view(), search.h), so a value model
 * never sees the search itself.
 */
struct mc_value_view {
    const struct mc_target *t;
    const char *key;
    const char *strategy;
    struct mc_search_node *nodes;
    size_t n;
};

struct mc_valuer {
    const char *name;      /* "served", "built-in": the manifest's */
    /* Open for S into *STATE: MC_OK, or MC_ENOENT when this model is not
     * configured (not an error), or another code with why in ERR (the
     * search then ranks by reward, saying why). */
    enum mc_code (*open)(const struct mc_value_view *s, void **state,
                         struct mc_err *err);
    void (*close)(void *state);
    /* Set the value of the N nodes of S from FIRST (judged and
     * criticised). Returns MC_OK, or an error (in ERR) after which the
     * model is not asked again. */
    enum mc_code (*score)(const struct mc_value_view *s, void *state,
                          size_t first, size_t n, struct mc_err *err);
    /* The value of a child of node PARENT (-1: the original) whose knob
     * set is LABEL and code CODE (LEN bytes), before it is judged (its
     * feedback taken as its parent's): for the built-in proposer's
     * order. NULL when the model cannot say without a request. */
    double (*prior)(const struct mc_value_view *s, void *state, int parent,
                    const char *label, const char *code, size_t len);
    /* What it has cost, a view into U; 0 when it has no cost. */
    int (*cost)(void *state, struct mc_usage *u);
    /* Take the cost read back from the journal, moving U's models. */
    void (*restore)(void *state, struct mc_usage *u);
};

/* The I-th value model of the registry, in order of preference; NULL
 * past the last. (The search opens the first configured: search.h's
 * mc_value_open().) */
const struct mc_valuer *mc_valuer_at(size_t i);

/*
 * What identifies T's value model in its content key, into OUT:
 * "served:MODEL" with MAXCODE_GVF_URL, "built-in:V:HASH" when
 * CACHE_DIR/gvf/model is a model (V its version, HASH its content's),
 * else "reward". MC_ENOMEM.
 */
enum mc_code mc_value_identity(const struct mc_target *t, struct mc_buf *out);

struct mc_gvf_state;

/* The state of node I of S as a value model reads it (gvfmodel.h); ST
 * borrows from S. */
void mc_value_state(const struct mc_value_view *s, size_t i,
                    struct mc_gvf_state *st);

/* The state of node ND of a search in language LANG whose original is
 * ORIG (a trajectory read back); ST borrows from ND and ORIG. */
void mc_value_state_of(const struct mc_search_node *nd, enum mc_lang lang,
                       const struct mc_buf *orig, struct mc_gvf_state *st);

/*
 * The served value model's prompts: the system prompt, and the user
 * prompt of state ST under bins BINS ("125+180+260") into OUT. The
 * rollout export writes the same prompt in each record, so a model
 * trained on the export reads at search time what it learned from
 * (doc/gvf.md). MC_ENOMEM.
 */
extern const char mc_value_system[];
enum mc_code mc_value_prompt(const struct mc_gvf_state *st, const char *bins,
                             struct mc_buf *out);

/* The built-in model's file, relative to the cache directory. */
#define MC_VALUE_MODEL_FILE "gvf/model"

/* The path of the built-in model in cache CACHE_DIR, into OUT. */
enum mc_code mc_value_model_path(const char *cache_dir, struct mc_buf *out);

#endif /* MC_VALUE_H */
