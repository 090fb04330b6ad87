/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proposer_llm.c: the model-driven proposer (proposer=llm) behind the
 * proposer interface. It sends one policy prompt per proposal (prompt.h;
 * the fields best, critique and traj switched by the option fields), the
 * K proposals of a round together (as one request with n under
 * MAXCODE_LLM_N=1 when they share a prompt) and, after the round's
 * candidates are judged, one critic call per candidate (critique=off:
 * none). A rejected answer (no code, cut at max_tokens, blocks that do
 * not fit the fences) is a candidate with verdict rejected. A request
 * that fails for good drops its proposal; a fatal endpoint error (401,
 * 403, 404, quota, bad URL) or a round whose every request failed stops
 * the search. max-tokens and max-cost stop it before the next request
 * once the totals reach them; under them no more requests go out at once
 * than the rest of the budget pays for.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "alloc.h"
#include "log.h"
#include "mark.h"
#include "lang.h"
#include "prompt.h"
#include "search.h"

#include <math.h>

#define TRAJ_CODE    4    /* trajectory steps that show their code */
#define CRITIQUE_MAX 4000 /* bytes of a critique kept */

/* The proposer's state, in the search's prop_state. */
struct llm_state {
    const char *model;
    int fenced;               /* the source has begin/end regions */
    int field_best, field_critique, field_traj, critic_on;
    double max_tokens, max_cost; /* 0: no cap */
    int capped;               /* max-tokens or max-cost stopped it */
};

/* ---- identity ---- */

/* The key's part of a model-driven search: the name ("auto" may stand
 * for it), the endpoint's API, the critic model and the prompts'
 * version (the model itself is keyed for every proposer). */
static void
llm_identity(const struct mc_target *t, const struct mc_key_versions *v,
             struct mc_hash *h)
{
    const char *critic = mc_conf_get(&t->conf, MC_SET_CRITIC_MODEL);

    mc_hash_field_str(h, "proposer-resolved", "llm");
    mc_hash_field_str(h, "llm-api", mc_conf_get(&t->conf, MC_SET_LLM_API));
    mc_hash_field_str(h, "critic-model",
                      *critic ? critic : mc_conf_get(&t->conf, MC_SET_MODEL));
    mc_hash_field_str(h, "prompt-version", v->prompt_version);
}

/* proposer=auto takes the model when an endpoint or a replay directory
 * is configured. */
static int
llm_automatic(const struct mc_target *t)
{
    return *mc_conf_get(&t->conf, MC_SET_LLM_URL) ||
           *mc_conf_get(&t->conf, MC_SET_LLM_REPLAY);
}

/* ---- set-up ---- */

static enum mc_code
llm_init(struct mc_search *s, struct mc_err *err)
{
    struct mc_target *t = s->t;
    struct llm_state *L = mc_calloc(1, sizeof(*L));
    struct mc_mark m = MC_MARK_INIT;
    const char *fields = mc_target_get(t, MC_OPT_FIELDS);
    const char *critic = mc_conf_get(&t->conf, MC_SET_CRITIC_MODEL);
    enum mc_code rc;

    if (!L)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    s->prop_state = L;
    if (mc_mark_scan(t->text.s ? t->text.s : "", t->text.len, &m, NULL) ==
        MC_OK)
        L->fenced = m.n_fences > 0;
    mc_mark_release(&m);
    L->model = mc_conf_get(&t->conf, MC_SET_MODEL);
    s->critic_model = *critic ? critic : L->model;
    L->field_best = strstr(fields, "best") != NULL;
    L->field_critique = strstr(fields, "critique") != NULL;
    L->field_traj = strstr(fields, "traj") != NULL;
    L->critic_on = !strcmp(mc_target_get(t, MC_OPT_CRITIQUE), "on");
    L->max_tokens = atof(mc_target_get(t, MC_OPT_MAX_TOKENS));
    L->max_cost = atof(mc_target_get(t, MC_OPT_MAX_COST));
    rc = mc_llm_init(&s->llm, &t->conf, err);
    if (rc == MC_OK) {
        s->use_llm = 1;
        s->llm.tag = s->key;
        if (L->max_cost > 0 && s->llm.price_in <= 0 &&
            s->llm.price_out <= 0)
            mc_info("%s: max-cost is set but MAXCODE_PRICE_IN and "
                    "MAXCODE_PRICE_OUT are 0: the cost stays 0",
                    t->source);
    } else if (rc == MC_ECONFIG) {
        s->endpoint_failed = 1;
    }
    return rc;
}

static void
llm_release(struct mc_search *s)
{
    if (s->use_llm)
        mc_llm_release(&s->llm);
    s->use_llm = 0;
    mc_free(s->prop_state);
    s->prop_state = NULL;
}

/* ---- prompts ---- */

static const char *
fence_lang(const struct mc_search *s)
{
    return mc_lang_get(s->t->lang)->fence;
}

/* The policy's system prompt: CUDA sources have their own. */
static const char *
policy_system(const struct mc_search *s)
{
    return mc_lang_get(s->t->lang)->kernels ? mc_prompt_policy_cuda_system
                                            : mc_prompt_policy_system;
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

/* One step of the trajectory field: node I; CURRENT when it is the
 * parent (its code is in the current field), OMITTED when it is too old
 * to show its code. */
static void
traj_step(const struct mc_search *s, int i, int current, int omitted,
          struct mc_buf *out)
{
    const struct llm_state *L = s->prop_state;
    const struct mc_search_node *nd = &s->nodes[i];
    struct mc_buf fb = MC_BUF_INIT;
    char step[16], reward[32];

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
            {"critique", L->field_critique ? nd->critique : ""},
        };
        mc_prompt_render(mc_prompt_traj_step, v, MC_ARRAY_SIZE(v), out);
    }
    mc_buf_release(&fb);
}

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
        /* The code of the last TRAJ_CODE steps before the current one;
         * older steps give their feedback and critique only, so that a
         * deep path does not outgrow the model's context. */
        int current = path[n] == parent;

        traj_step(s, path[n], current, !current && n > TRAJ_CODE, out);
    }
}

/* The policy prompt for a proposal from PARENT (-1: the original);
 * REPAIR when PARENT is wrong. */
static void
policy_prompt(const struct mc_search *s, int parent, int repair,
              struct mc_buf *out)
{
    const struct llm_state *L = s->prop_state;
    const struct mc_search_node *cur = parent >= 0 ? &s->nodes[parent] : NULL;
    struct mc_buf flags = MC_BUF_INIT, cur_fb = MC_BUF_INIT;
    struct mc_buf best_fb = MC_BUF_INIT, traj = MC_BUF_INIT;
    const struct mc_search_node *best = NULL;
    int b = mc_search_best_correct(s);
    char best_reward[32] = "";
    const char *tol = mc_target_get(s->t, MC_OPT_TOLERANCE);
    const char *kernel = mc_target_get(s->t, MC_OPT_KERNEL);

    mc_strv_join_shell(&s->t->flags, &flags);
    if (cur)
        feedback_text(cur, &cur_fb);
    if (L->field_best && b >= 0) {
        best = &s->nodes[b];
        feedback_text(best, &best_fb);
        reward_text(best->reward, best_reward, sizeof(best_reward));
    }
    if (L->field_traj && cur)
        trajectory(s, parent, &traj);
    {
        const struct mc_prompt_var v[] = {
            {"lang", mc_lang_get(s->t->lang)->name},
            {"source", s->t->source},
            {"tolerance", *tol ? tol : NULL},
            {"compiler", s->t->compiler},
            {"flags", flags.len ? flags.s : "(none)"},
            {"fences", L->fenced ? "1" : NULL},
            {"kernel", *kernel ? kernel : NULL},
            {"all_kernels", !*kernel && !L->fenced &&
                                    mc_lang_get(s->t->lang)->kernels
                                ? "1"
                                : NULL},
            {"fence", fence_lang(s)},
            {"original", s->ev->orig_text.s},
            {"current", cur ? cur->code.s : NULL},
            {"current_label", cur ? cur->label : NULL},
            {"current_feedback", cur_fb.s},
            {"current_critique",
             cur && L->field_critique ? cur->critique : NULL},
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
    reward_text(mc_search_best_reward(s), best, sizeof(best));
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

/* ---- the model budget and failures ---- */

/* Has the model budget (max-tokens, max-cost) been reached? Says so
 * once. */
static int
llm_spent(struct mc_search *s)
{
    struct llm_state *L = s->prop_state;
    const struct mc_llm_usage *u = &s->llm.total;

    if (L->max_tokens > 0 &&
        (double)(u->tokens_in + u->tokens_out) >= L->max_tokens) {
        if (!L->capped)
            mc_info("%s: max-tokens %.0f reached (%llu tokens) after %zu "
                    "candidates", s->t->source, L->max_tokens,
                    u->tokens_in + u->tokens_out, s->n);
        L->capped = 1;
    } else if (L->max_cost > 0 && u->cost >= L->max_cost) {
        if (!L->capped)
            mc_info("%s: max-cost %g reached (%.4f) after %zu candidates",
                    s->t->source, L->max_cost, u->cost, s->n);
        L->capped = 1;
    }
    return L->capped;
}

/*
 * Under max-tokens or max-cost, no more requests at once than the rest
 * of the budget pays for at the mean use per request so far; the first
 * request goes alone to measure it.
 */
static size_t
budget_batch(const struct mc_search *s, size_t k)
{
    const struct llm_state *L = s->prop_state;
    const struct mc_llm_usage *u = &s->llm.total;
    double fit = (double)k;

    if (L->max_tokens <= 0 && L->max_cost <= 0)
        return k;
    if (!u->requests)
        return 1;
    if (L->max_tokens > 0 && u->tokens_in + u->tokens_out > 0)
        fit = fmin(fit, (L->max_tokens - (double)(u->tokens_in +
                                                  u->tokens_out)) /
                            ((double)(u->tokens_in + u->tokens_out) /
                             (double)u->requests));
    if (L->max_cost > 0 && u->cost > 0)
        fit = fmin(fit, (L->max_cost - u->cost) /
                            (u->cost / (double)u->requests));
    return fit < 1 ? 1 : (size_t)fit;
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

static void
llm_explain(const struct mc_search *s, struct mc_buf *reason)
{
    const struct llm_state *L = s->prop_state;

    if (L->capped)
        mc_buf_addf(reason, "; the model budget (%s) stopped the search",
                    L->max_tokens > 0 ? "max-tokens" : "max-cost");
}

static int
llm_cost(const struct mc_search *s, struct mc_usage *u)
{
    if (!s->use_llm)
        return 0;
    mc_usage_view(u, &s->llm);
    return 1;
}

static void
llm_restore(struct mc_search *s, struct mc_usage *u)
{
    if (s->use_llm)
        mc_usage_move(u, &s->llm);
}

/* ---- the critic ---- */

/* Node I's critic answer R. */
static void
critic_answer(struct mc_search *s, size_t i, struct mc_llm_resp *r)
{
    struct llm_state *L = s->prop_state;

    if (r->ok) {
        mc_buf_rtrim(&r->text);
        if (r->text.len > CRITIQUE_MAX) {
            size_t len = CRITIQUE_MAX;
            /* Not inside a UTF-8 character. */
            while (len && (r->text.s[len] & 0xC0) == 0x80)
                len--;
            r->text.len = len;
            r->text.s[len] = '\0';
        }
        s->nodes[i].critique = mc_buf_detach(&r->text, NULL);
    } else if (r->fatal && L->critic_on) {
        /* A critic model that cannot answer does not stop a search
         * whose policy model can. */
        mc_info("%s: the critic failed (%s); going on without it",
                s->t->source, r->error.s);
        L->critic_on = 0;
    } else if (!r->fatal) {
        request_failed(s, "critic", r);
    }
}

/* One critic call for each of the N nodes from FIRST that have code;
 * a node without code has its reason as its critique. */
static void
llm_critique(struct mc_search *s, size_t first, size_t n)
{
    struct llm_state *L = s->prop_state;
    struct mc_llm_req req[MC_PLAN_MAX];
    struct mc_llm_resp resp[MC_PLAN_MAX];
    struct mc_buf prompt[MC_PLAN_MAX];
    size_t idx[MC_PLAN_MAX], k = 0, i;

    memset(req, 0, sizeof(req));
    for (i = first; i < first + n && k < MC_PLAN_MAX; i++) {
        struct mc_search_node *nd = &s->nodes[i];

        if (!nd->code.len) {
            /* Nothing to criticise: the reason is the critique. */
            nd->critique = mc_strdup(nd->detail ? nd->detail : "");
            continue;
        }
        if (!L->critic_on || s->endpoint_failed || llm_spent(s) ||
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
    if (k)
        mc_llm_run(&s->llm, req, k, resp);
    for (i = 0; i < k; i++) {
        critic_answer(s, idx[i], &resp[i]);
        mc_llm_resp_release(&resp[i]);
        mc_buf_release(&prompt[i]);
    }
}

/* ---- proposals ---- */

/* Do the K slots share one parent and purpose (hence one prompt)? */
static int
same_prompts(const struct mc_plan_slot *slot, size_t k)
{
    size_t i;

    for (i = 1; i < k; i++)
        if (slot[i].parent != slot[0].parent ||
            slot[i].repair != slot[0].repair)
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

/* Send the K requests REQ for the slots SLOT together, into RESP. */
static void
send_round(struct mc_search *s, const struct mc_plan_slot *slot,
           struct mc_llm_req *req, struct mc_llm_resp *resp, size_t k)
{
    size_t got = 0;

    if (s->llm.use_n && k > 1 && same_prompts(slot, k)) {
        /* One request with n = K: the prompt is paid once. */
        req[0].n = (unsigned)k;
        mc_llm_run(&s->llm, req, 1, resp);
        got = spread_choices(resp, k);
    }
    /* The rest (all of them without n; the choices a server that
     * ignores n did not give) as separate requests. */
    if (got < k)
        mc_llm_run(&s->llm, req + got, k - got, resp + got);
}

/* The answer R for slot SL: the next candidate of OUT, rejected (with
 * the reason) when it holds no code that fits. */
static enum mc_code
collect(struct mc_search *s, const struct mc_plan_slot *sl,
        const struct mc_llm_resp *r, struct mc_proposals *out,
        struct mc_err *err)
{
    const struct mc_buf *orig = &s->ev->orig_text;
    struct mc_proposal *p = &out->v[out->n++];
    struct mc_buf label = MC_BUF_INIT, why = MC_BUF_INIT;

    p->parent = sl->parent;
    mc_buf_addf(&label, "llm#%zu", s->n + out->n);
    p->label = mc_buf_detach(&label, NULL);
    if (!p->label)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!r->ok) {
        p->detail = mc_strdup(r->error.s);
    } else if (mc_prompt_extract(r->text.s, orig->s, orig->len, &p->code,
                                 &why)) {
        p->detail = mc_buf_detach(&why, NULL);
        mc_buf_reset(&p->code);
    }
    mc_buf_release(&why);
    p->rejected = !p->code.len;
    return MC_OK;
}

/*
 * One round of the model: the first PLAN->want slots (fewer under
 * max-tokens or max-cost), one policy prompt each, requested together.
 * A request that failed drops its slot; when every one failed, the
 * endpoint has failed.
 */
static enum mc_code
llm_propose(struct mc_search *s, const struct mc_plan *plan,
            struct mc_proposals *out, struct mc_err *err)
{
    const struct llm_state *L = s->prop_state;
    struct mc_llm_req req[MC_PLAN_MAX];
    struct mc_llm_resp resp[MC_PLAN_MAX];
    struct mc_buf prompt[MC_PLAN_MAX];
    size_t k = budget_batch(s, plan->want), i, failed = 0;
    enum mc_code rc = MC_OK;

    if (k > MC_PLAN_MAX)
        k = MC_PLAN_MAX;
    memset(req, 0, sizeof(req));
    for (i = 0; i < k; i++) {
        mc_buf_init(&prompt[i]);
        policy_prompt(s, plan->slot[i].parent, plan->slot[i].repair,
                      &prompt[i]);
        req[i].model = L->model;
        req[i].system = policy_system(s);
        req[i].user = prompt[i].s;
        req[i].seed = (unsigned)(s->n + i + 1);
        req[i].n = 1;
        req[i].purpose = "propose";
        req[i].ordinal = s->n + i;
        mc_llm_resp_init(&resp[i]);
    }
    send_round(s, plan->slot, req, resp, k);
    for (i = 0; i < k && rc == MC_OK; i++) {
        if (resp[i].status != 200) {
            request_failed(s, "proposal", &resp[i]);
            failed++;
            continue;
        }
        rc = collect(s, &plan->slot[i], &resp[i], out, err);
    }
    for (i = 0; i < k; i++) {
        mc_llm_resp_release(&resp[i]);
        mc_buf_release(&prompt[i]);
    }
    if (!rc && !out->n && failed && !s->endpoint_failed) {
        s->endpoint_failed = 1;
        mc_buf_reset(&s->reason);
        mc_buf_addf(&s->reason, "the model endpoint failed: every request "
                    "of the round failed");
    }
    return rc;
}

const struct mc_proposer mc_proposer_llm = {
    .name = "llm",
    .k = 8, /* as in the paper */
    .k_flat = 8,
    .critique_together = 1,
    .identity = llm_identity,
    .automatic = llm_automatic,
    .init = llm_init,
    .release = llm_release,
    .propose = llm_propose,
    .critique = llm_critique,
    .spent = llm_spent,
    .cost = llm_cost,
    .restore = llm_restore,
    .explain = llm_explain,
};
