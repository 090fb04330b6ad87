/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: the max-reward loop, its strategies and the final
 * confirmation. See search.h; the journal is journal.c.
 */
#include "mc_setup.h"
#include "search.h"
#include "alloc.h"
#include "cache.h"
#include "journal.h"
#include "log.h"
#include "spawn.h"
#include "mark.h"
#include "prompt.h"

#include <math.h>
#include <time.h>

static size_t budget_batch(const struct mc_search *s, size_t k);

void
mc_search_node_init(struct mc_search_node *nd)
{
    memset(nd, 0, sizeof(*nd));
    mc_buf_init(&nd->code);
    nd->parent = -1;
}

void
mc_search_node_release(struct mc_search_node *nd)
{
    mc_free(nd->label);
    mc_free(nd->detail);
    mc_free(nd->critique);
    mc_buf_release(&nd->code);
}

enum mc_code
mc_search_init(struct mc_search *s, struct mc_target *t, struct mc_eval *ev,
               const char *key, const char *journal, const char *cache_dir,
               struct mc_err *err)
{
    enum mc_code rc;

    memset(s, 0, sizeof(*s));
    mc_buf_init(&s->reason);
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
    rc = mc_builtin_init(&s->builtin, t, err);
    if (rc || strcmp(mc_target_proposer(t), "llm"))
        return rc;
    {
        struct mc_mark m = MC_MARK_INIT;
        if (mc_mark_scan(t->text.s ? t->text.s : "", t->text.len, &m,
                         NULL) == MC_OK)
            s->fenced = m.n_fences > 0;
        mc_mark_release(&m);
    }
    {
        const char *fields = mc_target_get(t, MC_OPT_FIELDS);
        const char *critic = mc_conf_get(&t->conf, MC_SET_CRITIC_MODEL);

        s->model = mc_conf_get(&t->conf, MC_SET_MODEL);
        s->critic_model = *critic ? critic : s->model;
        s->field_best = strstr(fields, "best") != NULL;
        s->field_critique = strstr(fields, "critique") != NULL;
        s->field_traj = strstr(fields, "traj") != NULL;
        s->critic_on = !strcmp(mc_target_get(t, MC_OPT_CRITIQUE), "on");
        s->max_tokens = atof(mc_target_get(t, MC_OPT_MAX_TOKENS));
        s->max_cost = atof(mc_target_get(t, MC_OPT_MAX_COST));
    }
    rc = mc_llm_init(&s->llm, &t->conf, err);
    if (rc == MC_OK) {
        s->use_llm = 1;
        s->llm.tag = s->key;
        if (s->max_cost > 0 && s->llm.price_in <= 0 &&
            s->llm.price_out <= 0)
            mc_info("%s: max-cost is set but MAXCODE_PRICE_IN and "
                    "MAXCODE_PRICE_OUT are 0: the cost stays 0",
                    t->source);
    }
    else if (rc == MC_ECONFIG)
        s->endpoint_failed = 1;
    return rc;
}

void
mc_search_release(struct mc_search *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        mc_search_node_release(&s->nodes[i]);
    mc_free(s->nodes);
    mc_free(s->journal);
    if (s->use_llm)
        mc_llm_release(&s->llm);
    mc_buf_release(&s->reason);
    memset(s, 0, sizeof(*s));
}

size_t
mc_search_correct(const struct mc_search *s)
{
    size_t i, n = 0;

    for (i = 0; i < s->n; i++)
        n += s->nodes[i].correct;
    return n;
}

static struct mc_search_node *
new_node(struct mc_search *s)
{
    struct mc_search_node *nd;

    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct mc_search_node *v = mc_realloc(s->nodes, cap * sizeof(*v));
        if (!v)
            return NULL;
        s->nodes = v;
        s->cap = cap;
    }
    nd = &s->nodes[s->n];
    mc_search_node_init(nd);
    return nd;
}

/* The proposer's view of the nodes; the caller frees it. */
static struct mc_prop_node *
prop_view(const struct mc_search *s)
{
    struct mc_prop_node *v = mc_calloc(s->n + 1, sizeof(*v));
    size_t i;

    for (i = 0; v && i < s->n; i++) {
        v[i].parent = s->nodes[i].parent;
        v[i].tag = s->nodes[i].tag;
        v[i].evaluated = 1;
        v[i].correct = s->nodes[i].correct;
        v[i].compile_error = s->nodes[i].compile_error;
        v[i].speedup = s->nodes[i].speedup;
    }
    return v;
}

static void
update_best(struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];

    if (nd->confirmed &&
        (s->best < 0 || nd->reward > s->nodes[s->best].reward))
        s->best = (int)i;
}

/* ---- journal ---- */

/* Read the journal back (journal.h); start a new one when there is none
 * (or it is another search's). */
static enum mc_code
journal_resume(struct mc_search *s, struct mc_err *err)
{
    struct mc_journal_head h;
    struct mc_journal_log log;
    enum mc_code rc;
    size_t i;

    h.key = s->key;
    h.strategy = s->strategy;
    h.proposer = s->use_llm ? "llm" : "builtin";
    h.budget = s->budget;
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
        struct mc_prop_node *view;

        s->n = i + 1;
        /* Replay what the proposer learnt (bans, blame). */
        view = prop_view(s);
        if (view) {
            struct mc_buf scratch = MC_BUF_INIT;
            mc_builtin_learn(&s->builtin, view, i,
                             s->nodes[i].detail ? s->nodes[i].detail : "",
                             &scratch);
            mc_buf_release(&scratch);
            mc_free(view);
        }
        update_best(s, i);
    }
    log.nodes = NULL;
    log.n = log.cap = 0;
    if (s->n && s->use_llm)
        mc_usage_move(&log.usage, &s->llm);
    s->resumed = s->n;
    if (s->resumed)
        mc_info("%s: resumed from the journal: %zu of %zu candidates "
                "already evaluated", s->t->source, s->resumed, s->budget);
out:
    mc_journal_log_release(&log);
    return rc;
}


/* ---- one candidate ---- */

static double
best_reward(const struct mc_search *s)
{
    return s->best >= 0 ? s->nodes[s->best].reward : 1.0;
}

/* A new node from PARENT labelled LABEL (owned by the node after). */
static struct mc_search_node *
add_node(struct mc_search *s, int parent, unsigned long tag, char *label)
{
    struct mc_search_node *nd = new_node(s);

    if (!nd) {
        mc_free(label);
        return NULL;
    }
    nd->parent = parent;
    nd->depth = parent >= 0 ? s->nodes[parent].depth + 1 : 1;
    nd->tag = tag;
    nd->label = label;
    nd->verdict = MC_VERDICT_REJECTED;
    s->n++;
    return nd;
}

/* Count one candidate in the cache's counters now, not at the end: a
 * killed search's work shows. */
static void
count_candidate(struct mc_search *s)
{
    struct mc_cache c;
    struct mc_stats d;

    s->evaluated++;
    if (!s->cache_dir)
        return;
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_CANDIDATES] = 1;
    if (mc_cache_init(&c, s->cache_dir, NULL) == MC_OK) {
        mc_cache_stats_add(&c, &d, NULL);
        mc_cache_release(&c);
    }
}

/* Count the model usage since BEFORE in the cache's counters, at once. */
static void
count_usage(struct mc_search *s, const struct mc_llm_usage *before)
{
    const struct mc_llm_usage *now = &s->llm.total;
    struct mc_cache c;
    struct mc_stats d;

    if (!s->cache_dir || now->requests == before->requests)
        return;
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_LLM_REQUESTS] = now->requests - before->requests;
    d.n[MC_STAT_TOKENS_IN] = now->tokens_in - before->tokens_in;
    d.n[MC_STAT_TOKENS_OUT] = now->tokens_out - before->tokens_out;
    d.cost = now->cost - before->cost;
    if (mc_cache_init(&c, s->cache_dir, NULL) == MC_OK) {
        mc_cache_stats_add(&c, &d, NULL);
        mc_cache_release(&c);
    }
}

static void
set_reward(struct mc_search *s, struct mc_search_node *nd)
{
    double g = pow(s->gamma, nd->depth);

    nd->reward = nd->speedup;
    nd->u = fmax(nd->parent >= 0 ? s->nodes[nd->parent].u : 0,
                 g * nd->reward);
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
    rc = mc_eval_candidate(s->ev, nd->code.s, nd->code.len, sanitize, 1,
                           &fb, err);
    if (rc) {
        mc_feedback_release(&fb);
        return rc;
    }
    count_candidate(s);
    nd = &s->nodes[i];
    nd->verdict = fb.verdict;
    nd->correct = fb.correct;
    nd->compile_error = fb.verdict == MC_VERDICT_COMPILE_ERROR;
    nd->confirmed = fb.timing.confirmed;
    nd->speedup = !fb.correct       ? 0
                  : nd->confirmed ? fb.timing.confirmed_speedup
                                  : fb.timing.median;
    set_reward(s, nd);
    nd->detail = mc_strdup(fb.detail.s);
    mc_feedback_release(&fb);
    return MC_OK;
}

/* Node I is complete: the best so far, the journal, the progress line. */
static void
settle(struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];
    /* Without a critique, the first line of the detail. */
    const char *note = nd->critique && *nd->critique ? nd->critique
                       : nd->detail                  ? nd->detail
                                                     : "";
    int len = (int)strcspn(note, "\n");
    struct mc_usage u = MC_USAGE_INIT;

    update_best(s, i);
    if (s->use_llm)
        mc_usage_view(&u, &s->llm);
    mc_journal_append(s->journal, nd, s->use_llm ? &u : NULL);
    if (nd->correct)
        mc_info("%s [%zu/%zu] correct %.2fx (best %.2fx)%s%.*s",
                s->t->source, i + 1, s->budget, nd->speedup, best_reward(s),
                len ? ": " : "", len, note);
    else
        mc_info("%s [%zu/%zu] %s (best %.2fx)%s%.*s", s->t->source, i + 1,
                s->budget, mc_verdict_name(nd->verdict), best_reward(s),
                len ? ": " : "", len, note);
}

/* Render, judge, learn, journal and report the built-in proposer's
 * candidate with knobs TAG from PARENT. */
static enum mc_code
evaluate(struct mc_search *s, int parent, unsigned long tag,
         struct mc_err *err)
{
    struct mc_buf label = MC_BUF_INIT, crit = MC_BUF_INIT;
    const struct mc_buf *orig = &s->ev->orig_text;
    struct mc_search_node *nd;
    struct mc_prop_node *view;
    enum mc_code rc;

    mc_builtin_label(&s->builtin, tag, &label);
    nd = add_node(s, parent, tag, mc_buf_detach(&label, NULL));
    if (!nd)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (mc_builtin_render(&s->builtin, tag, orig->s, orig->len, &nd->code))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = judge(s, s->n - 1, !strcmp(mc_target_get(s->t, MC_OPT_SANITIZE),
                                    "1"), err);
    if (rc)
        return rc;
    nd = &s->nodes[s->n - 1];
    view = prop_view(s);
    if (view) {
        mc_builtin_learn(&s->builtin, view, s->n - 1,
                         nd->detail ? nd->detail : "", &crit);
        mc_free(view);
    }
    nd->critique = mc_buf_detach(&crit, NULL);
    settle(s, s->n - 1);
    return MC_OK;
}

/* ---- the model-driven proposer ---- */

/* The node to expand: the best correct by reward, else -1. */
static int
best_correct(const struct mc_search *s)
{
    int best = -1;
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->nodes[i].correct &&
            (best < 0 || s->nodes[i].reward > s->nodes[best].reward))
            best = (int)i;
    return best;
}


static const char *
fence_lang(const struct mc_search *s)
{
    static const char *const names[] = {"c", "cpp", "cuda"};
    return names[s->t->lang];
}

/* What happened to ND, in a line or a few, for a prompt. */
static void
feedback_text(const struct mc_search_node *nd, struct mc_buf *out)
{
    if (nd->correct && nd->confirmed)
        mc_buf_addf(out, "correct; %.2fx faster than the original, "
                    "confirmed beyond the timing noise", nd->speedup);
    else if (nd->correct)
        mc_buf_addf(out, "correct; measured median speedup %.2fx over the "
                    "original, not confirmed beyond the timing noise",
                    nd->speedup);
    else
        mc_buf_addf(out, "%s: %s", mc_verdict_name(nd->verdict),
                    nd->detail && *nd->detail ? nd->detail
                                              : "(no detail)");
}

static void
reward_text(double r, char *out, size_t cap)
{
    snprintf(out, cap, "%.2f", r);
}

#define TRAJ_CODE 4

/* The trajectory field: every step from the root to PARENT, oldest
 * first; PARENT's own code is in the current field. */
static void
trajectory(const struct mc_search *s, int parent, struct mc_buf *out)
{
    int path[256];
    size_t n = 0;
    int i;

    for (i = parent; i >= 0 && n < MC_ARRAY_SIZE(path);
         i = s->nodes[i].parent)
        path[n++] = i;
    while (n--) {
        const struct mc_search_node *nd = &s->nodes[path[n]];
        struct mc_buf fb = MC_BUF_INIT;
        char step[16], reward[32];
        /* The code of the last TRAJ_CODE steps before the current one;
         * older steps give their feedback and critique only, so that a
         * deep path does not outgrow the model's context. */
        int current = path[n] == parent, omitted = !current &&
                                                   n > TRAJ_CODE;

        snprintf(step, sizeof(step), "%zu", (size_t)nd->depth);
        reward_text(nd->reward, reward, sizeof(reward));
        feedback_text(nd, &fb);
        {
            const struct mc_prompt_var v[] = {
                {"step", step},
                {"label", nd->label},
                {"reward", reward},
                {"fence", fence_lang(s)},
                {"code", current || omitted ? "" : nd->code.s},
                {"current", current ? "1" : ""},
                {"omitted", omitted ? "1" : ""},
                {"feedback", fb.s},
                {"critique", s->field_critique ? nd->critique : ""},
            };
            mc_prompt_render(mc_prompt_traj_step, v, MC_ARRAY_SIZE(v), out);
        }
        mc_buf_release(&fb);
    }
}

/* The policy prompt for a proposal from PARENT (-1: the original);
 * REPAIR when PARENT is wrong. */
static void
policy_prompt(const struct mc_search *s, int parent, int repair,
              struct mc_buf *out)
{
    const struct mc_search_node *cur = parent >= 0 ? &s->nodes[parent] : NULL;
    struct mc_buf flags = MC_BUF_INIT, cur_fb = MC_BUF_INIT;
    struct mc_buf best_fb = MC_BUF_INIT, traj = MC_BUF_INIT;
    const struct mc_search_node *best = NULL;
    int b = best_correct(s);
    char best_reward[32] = "";
    const char *tol = mc_target_get(s->t, MC_OPT_TOLERANCE);

    mc_strv_join_shell(&s->t->flags, &flags);
    if (cur)
        feedback_text(cur, &cur_fb);
    if (s->field_best && b >= 0) {
        best = &s->nodes[b];
        feedback_text(best, &best_fb);
        reward_text(best->reward, best_reward, sizeof(best_reward));
    }
    if (s->field_traj && cur)
        trajectory(s, parent, &traj);
    {
        const struct mc_prompt_var v[] = {
            {"lang", s->t->lang == MC_LANG_C     ? "C"
                     : s->t->lang == MC_LANG_CXX ? "C++"
                                                 : "CUDA"},
            {"source", s->t->source},
            {"tolerance", *tol ? tol : NULL},
            {"compiler", s->t->compiler},
            {"flags", flags.len ? flags.s : "(none)"},
            {"fences", s->fenced ? "1" : NULL},
            {"fence", fence_lang(s)},
            {"original", s->ev->orig_text.s},
            {"current", cur ? cur->code.s : NULL},
            {"current_label", cur ? cur->label : NULL},
            {"current_feedback", cur_fb.s},
            {"current_critique",
             cur && s->field_critique ? cur->critique : NULL},
            {"best", best ? best->code.s : NULL},
            {"best_is_current", best && best == cur ? "1" : NULL},
            {"best_reward", best_reward},
            {"best_feedback", best_fb.s},
            {"traj", traj.len ? traj.s : NULL},
            {"repair", repair ? "1" : NULL},
        };
        mc_prompt_render(mc_prompt_policy, v, MC_ARRAY_SIZE(v), out);
    }
    mc_buf_release(&flags);
    mc_buf_release(&cur_fb);
    mc_buf_release(&best_fb);
    mc_buf_release(&traj);
}

/* The critic's prompt for node I. */
static void
critic_prompt(const struct mc_search *s, size_t i, struct mc_buf *out)
{
    const struct mc_search_node *nd = &s->nodes[i];
    struct mc_buf fb = MC_BUF_INIT;
    char parent_reward[32] = "", best[32];

    feedback_text(nd, &fb);
    if (nd->parent >= 0)
        reward_text(s->nodes[nd->parent].reward, parent_reward,
                    sizeof(parent_reward));
    reward_text(best_reward(s), best, sizeof(best));
    {
        const struct mc_prompt_var v[] = {
            {"fence", fence_lang(s)},
            {"original", s->ev->orig_text.s},
            {"label", nd->label},
            {"code", nd->code.s},
            {"feedback", fb.s},
            {"parent_reward", *parent_reward ? parent_reward : NULL},
            {"best_reward", best},
        };
        mc_prompt_render(mc_prompt_critic, v, MC_ARRAY_SIZE(v), out);
    }
    mc_buf_release(&fb);
}

/* Has the model budget (max-tokens, max-cost) been reached? Says so
 * once. */
static int
over_budget(struct mc_search *s)
{
    const struct mc_llm_usage *u = &s->llm.total;

    if (s->max_tokens > 0 &&
        (double)(u->tokens_in + u->tokens_out) >= s->max_tokens) {
        if (!s->capped)
            mc_info("%s: max-tokens %.0f reached (%llu tokens) after %zu "
                    "candidates", s->t->source, s->max_tokens,
                    u->tokens_in + u->tokens_out, s->n);
        s->capped = 1;
    } else if (s->max_cost > 0 && u->cost >= s->max_cost) {
        if (!s->capped)
            mc_info("%s: max-cost %g reached (%.4f) after %zu candidates",
                    s->t->source, s->max_cost, u->cost, s->n);
        s->capped = 1;
    }
    return s->capped;
}

/* A failed request R: note a fatal one, which ends the search. */
static void
request_failed(struct mc_search *s, const char *what,
               const struct mc_llm_resp *r)
{
    mc_info("%s: model %s request failed: %s", s->t->source, what,
            r->error.s ? r->error.s : "unknown error");
    if (r->fatal && !s->endpoint_failed) {
        s->endpoint_failed = 1;
        mc_buf_reset(&s->reason);
        mc_buf_addf(&s->reason, "the model endpoint failed: %s",
                    r->error.s ? r->error.s : "unknown error");
    }
}

/* One critic call for each of the N nodes from FIRST that have code. */
static void
critique_nodes(struct mc_search *s, size_t first, size_t n)
{
    struct mc_llm_req req[64];
    struct mc_llm_resp resp[64];
    struct mc_buf prompt[64];
    size_t idx[64], k = 0, i;

    for (i = first; i < first + n && k < MC_ARRAY_SIZE(req); i++) {
        struct mc_search_node *nd = &s->nodes[i];

        if (!nd->code.len) {
            /* Nothing to criticise: the reason is the critique. */
            nd->critique = mc_strdup(nd->detail ? nd->detail : "");
            continue;
        }
        if (!s->critic_on || s->endpoint_failed || over_budget(s) ||
            k >= budget_batch(s, n))
            continue;
        mc_buf_init(&prompt[k]);
        critic_prompt(s, i, &prompt[k]);
        req[k].model = s->critic_model;
        req[k].system = mc_prompt_critic_system;
        req[k].user = prompt[k].s;
        req[k].seed = (unsigned)i;
        req[k].n = 1;
        req[k].purpose = "critique";
        req[k].ordinal = i;
        mc_llm_resp_init(&resp[k]);
        idx[k++] = i;
    }
    if (k) {
        struct mc_llm_usage before = s->llm.total;
        mc_llm_run(&s->llm, req, k, resp);
        count_usage(s, &before);
    }
    for (i = 0; i < k; i++) {
        struct mc_search_node *nd = &s->nodes[idx[i]];

        if (resp[i].ok) {
            mc_buf_rtrim(&resp[i].text);
            if (resp[i].text.len > 4000) {
                size_t len = 4000;
                /* Not inside a UTF-8 character. */
                while (len && (resp[i].text.s[len] & 0xC0) == 0x80)
                    len--;
                resp[i].text.len = len;
                resp[i].text.s[len] = '\0';
            }
            nd->critique = mc_buf_detach(&resp[i].text, NULL);
        } else if (resp[i].fatal && s->critic_on) {
            /* A critic model that cannot answer does not stop a search
             * whose policy model can. */
            mc_info("%s: the critic failed (%s); going on without it",
                    s->t->source, resp[i].error.s);
            s->critic_on = 0;
        } else if (!resp[i].fatal) {
            request_failed(s, "critic", &resp[i]);
        }
        mc_llm_resp_release(&resp[i]);
        mc_buf_release(&prompt[i]);
    }
}

/* Do the K slots share one parent and purpose (hence one prompt)? */
static int
same_prompts(const int *parents, const int *repairs, size_t k)
{
    size_t i;

    for (i = 1; i < k; i++)
        if (parents[i] != parents[0] || repairs[i] != repairs[0])
            return 0;
    return 1;
}

/*
 * RESP[0] answered a request with n = K: give choice J to RESP[J]. Returns
 * the number of slots answered (1 + the extra choices; K when the
 * request failed, every slot then failing with it).
 */
static size_t
spread_choices(struct mc_llm_resp *resp, size_t k)
{
    size_t j, got;

    if (resp[0].status != 200) {
        for (j = 1; j < k; j++) {
            resp[j].status = resp[0].status;
            resp[j].fatal = resp[0].fatal;
            mc_buf_adds(&resp[j].error, resp[0].error.s ? resp[0].error.s
                                                        : "");
        }
        return k;
    }
    got = 1 + resp[0].extra.n;
    if (got > k)
        got = k;
    for (j = 1; j < got; j++) {
        struct mc_llm_resp *r = &resp[j];

        r->status = 200;
        r->truncated = (resp[0].extra_cut >> (j - 1)) & 1;
        mc_buf_adds(&r->text, resp[0].extra.v[j - 1]);
        r->ok = !r->truncated && r->text.len > 0;
        if (!r->ok)
            mc_buf_adds(&r->error, r->truncated
                                       ? "the answer was cut at max_tokens"
                                       : "the answer has no content");
    }
    return got;
}

/*
 * One round of the model: K proposals, from PARENTS[i] (REPAIRS[i]: a
 * fix of a wrong parent), requested together, then judged one by one,
 * then criticised together, then journaled.
 */
static enum mc_code
llm_round(struct mc_search *s, const int *parents, const int *repairs,
          size_t k, struct mc_err *err)
{
    struct mc_llm_req req[64];
    struct mc_llm_resp resp[64];
    struct mc_buf prompt[64];
    const struct mc_buf *orig = &s->ev->orig_text;
    size_t i, first = s->n, made = 0, failed = 0;
    int sanitize = strcmp(mc_target_get(s->t, MC_OPT_SANITIZE), "0") != 0;
    enum mc_code rc = MC_OK;

    if (k > MC_ARRAY_SIZE(req))
        k = MC_ARRAY_SIZE(req);
    for (i = 0; i < k; i++) {
        mc_buf_init(&prompt[i]);
        policy_prompt(s, parents[i], repairs[i], &prompt[i]);
        req[i].model = s->model;
        req[i].system = mc_prompt_policy_system;
        req[i].user = prompt[i].s;
        req[i].seed = (unsigned)(s->n + i + 1);
        req[i].n = 1;
        req[i].purpose = "propose";
        req[i].ordinal = s->n + i;
        mc_llm_resp_init(&resp[i]);
    }
    {
        struct mc_llm_usage before = s->llm.total;
        size_t got = 0;

        if (s->llm.use_n && k > 1 && same_prompts(parents, repairs, k)) {
            /* One request with n = K: the prompt is paid once. */
            req[0].n = (unsigned)k;
            mc_llm_run(&s->llm, req, 1, resp);
            got = spread_choices(resp, k);
        }
        /* The rest (all of them without n; the choices a server that
         * ignores n did not give) as separate requests. */
        if (got < k)
            mc_llm_run(&s->llm, req + got, k - got, resp + got);
        count_usage(s, &before);
    }
    for (i = 0; i < k && rc == MC_OK; i++) {
        struct mc_search_node *nd;
        struct mc_buf label = MC_BUF_INIT, why = MC_BUF_INIT;

        if (resp[i].status != 200) {
            request_failed(s, "proposal", &resp[i]);
            failed++;
            continue;
        }
        mc_buf_addf(&label, "llm#%zu", s->n + 1);
        nd = add_node(s, parents[i], 0, mc_buf_detach(&label, NULL));
        if (!nd) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            break;
        }
        made++;
        if (!resp[i].ok) {
            nd->detail = mc_strdup(resp[i].error.s);
        } else if (mc_prompt_extract(resp[i].text.s, orig->s, orig->len,
                                     &nd->code, &why)) {
            nd->detail = mc_buf_detach(&why, NULL);
            mc_buf_reset(&nd->code);
        }
        mc_buf_release(&why);
        if (!nd->code.len) {
            count_candidate(s);
            set_reward(s, nd);
            continue;
        }
        rc = judge(s, s->n - 1, sanitize, err);
    }
    for (i = 0; i < k; i++) {
        mc_llm_resp_release(&resp[i]);
        mc_buf_release(&prompt[i]);
    }
    if (rc)
        return rc;
    critique_nodes(s, first, made);
    for (i = first; i < first + made; i++)
        settle(s, i);
    if (!made && failed && !s->endpoint_failed) {
        s->endpoint_failed = 1;
        mc_buf_reset(&s->reason);
        mc_buf_addf(&s->reason, "the model endpoint failed: every request "
                    "of the round failed");
    }
    return MC_OK;
}

/* Propose up to K knob sets from PARENT (falling back to the original
 * when PARENT's neighbourhood is exhausted). */
static size_t
choose(struct mc_search *s, int parent, size_t k, int repair,
       unsigned long *tags, int *parents)
{
    struct mc_prop_node *view = prop_view(s);
    size_t n = 0, i;

    if (!view)
        return 0;
    mc_builtin_choose(&s->builtin, view, s->n, parent, k, repair, tags, &n);
    for (i = 0; i < n; i++)
        parents[i] = parent;
    if (n < k && parent >= 0) {
        size_t more = 0;
        mc_builtin_choose(&s->builtin, view, s->n, -1, k - n, 0, tags + n,
                          &more);
        /* Drop duplicates of what PARENT's round already holds. */
        for (i = 0; i < more && n < k; i++) {
            size_t j;
            int dup = 0;
            for (j = 0; j < n; j++)
                dup |= tags[j] == tags[n + i];
            if (!dup) {
                tags[n] = tags[n + i];
                parents[n++] = -1;
            }
        }
    }
    mc_free(view);
    return n;
}

static int
out_of_time(const struct mc_search *s, double start)
{
    return s->time_limit_s > 0 &&
           mc_spawn_clock() - start >= s->time_limit_s;
}

/*
 * Under max-tokens or max-cost, no more requests at once than the rest
 * of the budget pays for at the mean use per request so far; the first
 * request goes alone to measure it.
 */
static size_t
budget_batch(const struct mc_search *s, size_t k)
{
    const struct mc_llm_usage *u = &s->llm.total;
    double fit = (double)k;

    if (s->max_tokens <= 0 && s->max_cost <= 0)
        return k;
    if (!u->requests)
        return 1;
    if (s->max_tokens > 0 && u->tokens_in + u->tokens_out > 0)
        fit = fmin(fit, (s->max_tokens - (double)(u->tokens_in +
                                                  u->tokens_out)) /
                            ((double)(u->tokens_in + u->tokens_out) /
                             (double)u->requests));
    if (s->max_cost > 0 && u->cost > 0)
        fit = fmin(fit, (s->max_cost - u->cost) /
                            (u->cost / (double)u->requests));
    return fit < 1 ? 1 : (size_t)fit;
}

/* The model's rounds until the budget, the time limit, the model budget
 * or an endpoint failure. */
static enum mc_code
run_llm(struct mc_search *s, double start, struct mc_err *err)
{
    int parents[64], repairs[64];
    enum mc_code rc;

    while (s->n < s->budget && !s->endpoint_failed) {
        size_t left = s->budget - s->n, k = 0, j;

        if (out_of_time(s, start)) {
            mc_info("%s: MAXCODE_TIME_LIMIT (%.0f s) reached after %zu "
                    "candidates", s->t->source, s->time_limit_s, s->n);
            break;
        }
        if (over_budget(s))
            break;
        if (!strcmp(s->strategy, "flat")) {
            for (k = 0; k < left && k < 8; k++) {
                parents[k] = -1;
                repairs[k] = 0;
            }
        } else if (!strcmp(s->strategy, "effi-learner")) {
            /* Odd positions refine (or repair) the previous node; even
             * ones start a new path from the original. */
            k = 1;
            parents[0] = s->n % 2 == 1 ? (int)s->n - 1 : -1;
            repairs[0] = parents[0] >= 0 && !s->nodes[parents[0]].correct;
        } else {
            /* cuda-llm (and gvf without its value model): rounds of K. */
            size_t kk = s->budget < 8 ? s->budget : 8;
            size_t round_start = s->n - s->n % kk;
            int any_correct = 0, parent = best_correct(s);

            k = kk - (s->n - round_start);
            if (k > left)
                k = left;
            for (j = round_start >= kk ? round_start - kk : 0;
                 j < round_start; j++)
                any_correct |= s->nodes[j].correct;
            for (j = 0; j < k; j++) {
                parents[j] = parent;
                repairs[j] = 0;
            }
            if (round_start >= kk && !any_correct)
                /* Repair the previous round's candidates, one each. */
                for (j = 0; j < k; j++) {
                    parents[j] = (int)(round_start - kk + j % kk);
                    repairs[j] = 1;
                }
        }
        k = budget_batch(s, k);
        rc = llm_round(s, parents, repairs, k, err);
        if (rc)
            return rc;
    }
    return MC_OK;
}

enum mc_code
mc_search_run(struct mc_search *s, struct mc_err *err)
{
    double start = mc_spawn_clock(), min_speedup;
    unsigned long tags[64];
    int parents[64];
    enum mc_code rc;
    int stopped = 0;

    rc = journal_resume(s, err);
    if (rc)
        return rc;
    if (s->use_llm) {
        rc = run_llm(s, start, err);
        if (rc)
            return rc;
        stopped = 1;
    }
    while (s->n < s->budget && !stopped) {
        size_t left = s->budget - s->n, k, i, got;
        int parent = -1, repair = 0;

        if (out_of_time(s, start)) {
            mc_info("%s: MAXCODE_TIME_LIMIT (%.0f s) reached after %zu "
                    "candidates", s->t->source, s->time_limit_s, s->n);
            break;
        }
        if (!strcmp(s->strategy, "flat")) {
            k = 1;
        } else if (!strcmp(s->strategy, "effi-learner")) {
            /* Odd positions refine the previous node; even ones start a
             * new path from the original. */
            k = 1;
            if (s->n % 2 == 1) {
                parent = (int)s->n - 1;
                repair = !s->nodes[parent].correct;
            }
        } else {
            /* cuda-llm (and gvf without its model): rounds of K. */
            size_t kk = s->budget < 4 ? s->budget : 4;
            size_t round_start = s->n - s->n % kk, j;
            int any_correct = 0;

            k = kk - (s->n - round_start);
            if (k > left)
                k = left;
            parent = best_correct(s);
            for (j = round_start >= kk ? round_start - kk : 0;
                 j < round_start; j++)
                any_correct |= s->nodes[j].correct;
            if (round_start >= kk && !any_correct) {
                /* Repair the previous round's candidates, one each. */
                got = 0;
                for (j = round_start - kk; j < round_start && got < k; j++) {
                    size_t one = choose(s, (int)j, 1, 1, tags + got,
                                        parents + got);
                    got += one;
                }
                goto evaluate_round;
            }
        }
        if (k > MC_ARRAY_SIZE(tags))
            k = MC_ARRAY_SIZE(tags);
        got = choose(s, parent, k, repair, tags, parents);
    evaluate_round:
        if (!got) {
            mc_info("%s: the built-in proposer has nothing new to try after "
                    "%zu candidates", s->t->source, s->n);
            break;
        }
        for (i = 0; i < got && s->n < s->budget; i++) {
            if (out_of_time(s, start)) {
                stopped = 1;
                break;
            }
            rc = evaluate(s, parents[i], tags[i], err);
            if (rc)
                return rc;
        }
    }
    /* The answer: the best confirmed node, confirmed once more. */
    min_speedup = atof(mc_target_get(s->t, MC_OPT_MIN_SPEEDUP));
    if (s->best < 0) {
        int bc = best_correct(s);
        if (s->endpoint_failed)
            return MC_OK; /* the reason says what failed */
        if (bc >= 0)
            mc_buf_addf(&s->reason, "no variant beat min-speedup %.2f beyond "
                        "the noise: the best was %.2fx (%s); %zu candidates, "
                        "%zu correct", min_speedup, s->nodes[bc].speedup,
                        s->nodes[bc].label, s->n, mc_search_correct(s));
        else
            mc_buf_addf(&s->reason, "no correct variant among %zu "
                        "candidates (best speedup 0x)", s->n);
        if (s->capped)
            mc_buf_addf(&s->reason, "; the model budget (%s) stopped the "
                        "search", s->max_tokens > 0 ? "max-tokens"
                                                    : "max-cost");
        return MC_OK;
    }
    {
        struct mc_search_node *b = &s->nodes[s->best];
        struct mc_feedback fb;

        mc_feedback_init(&fb);
        rc = mc_eval_candidate(s->ev, b->code.s, b->code.len, 0, 1, &fb, err);
        if (rc) {
            mc_feedback_release(&fb);
            return rc;
        }
        if (fb.correct && fb.timing.confirmed &&
            fb.timing.confirmed_speedup >= min_speedup) {
            s->final_speedup = fb.timing.confirmed_speedup;
        } else {
            mc_buf_addf(&s->reason, "the best variant (%s, %.2fx) did not "
                        "hold in the final confirmation (%s, %.2fx)",
                        b->label, b->speedup, mc_verdict_name(fb.verdict),
                        fb.timing.median);
        }
        mc_feedback_release(&fb);
    }
    return MC_OK;
}
