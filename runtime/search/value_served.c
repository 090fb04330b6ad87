/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * value_served.c: the served value model (MAXCODE_GVF_URL): one request
 * per judged node, a round's together, asking for one token with its
 * logprobs. The value is the expected bin over the tokens "0".."4" that
 * the answer's top logprobs hold, or else the digit it answers. See
 * value.h.
 */
#include "mc_setup.h"
#include "value.h"
#include "alloc.h"
#include "gvfmodel.h"
#include "llm.h"
#include "log.h"
#include "node.h"
#include "target.h"
#include "strategy.h"

#include <cjson/cJSON.h>
#include <math.h>

struct served {
    struct mc_llm llm;
    const char *model;     /* MAXCODE_GVF_MODEL, else MAXCODE_MODEL */
};

static enum mc_code
served_open(const struct mc_value_view *s, void **state, struct mc_err *err)
{
    const struct mc_conf *c = &s->t->conf;
    const char *url = mc_conf_get(c, MC_SET_GVF_URL);
    const char *model = mc_conf_get(c, MC_SET_GVF_MODEL);
    struct served *v;
    enum mc_code rc;

    if (!*url)
        return MC_ENOENT;
    v = mc_calloc(1, sizeof(*v));
    if (!v)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = mc_llm_init_at(&v->llm, c, url,
                        mc_conf_get(c, MC_SET_GVF_API_KEY), err);
    if (rc) {
        mc_free(v);
        return rc;
    }
    /* One token is the answer; a little room for servers that add a
     * space or a newline before it. */
    v->llm.max_answer_tokens = 4;
    v->llm.tag = s->key;
    v->model = *model ? model : mc_conf_get(c, MC_SET_MODEL);
    *state = v;
    return MC_OK;
}

static void
served_close(void *state)
{
    struct served *v = state;

    if (!v)
        return;
    mc_llm_release(&v->llm);
    mc_free(v);
}

/* The expected bin over the logprobs JSON TOP ([{"token","logprob"}]),
 * or -1 when no bin's token is among them. */
static double
expected_bin(const char *top)
{
    cJSON *a = cJSON_Parse(top), *e;
    double p[MC_GVF_BINS] = {0}, sum = 0, ev = 0;
    int q;

    cJSON_ArrayForEach(e, a) {
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(e, "token");
        const cJSON *lp = cJSON_GetObjectItemCaseSensitive(e, "logprob");
        const char *t;

        if (!cJSON_IsString(tok) || !cJSON_IsNumber(lp))
            continue;
        t = tok->valuestring + strspn(tok->valuestring, " \t\n");
        if (t[0] >= '0' && t[0] < '0' + MC_GVF_BINS &&
            !t[1 + strspn(t + 1, " \t\n")] && isfinite(lp->valuedouble))
            p[t[0] - '0'] += exp(fmin(lp->valuedouble, 0));
    }
    cJSON_Delete(a);
    for (q = 0; q < MC_GVF_BINS; q++) {
        sum += p[q];
        ev += q * p[q];
    }
    return sum > 0 ? ev / sum : -1;
}

/* The value of answer R: the expected bin, else the first digit 0..4 of
 * its text, else -1. */
static double
value_of(const struct mc_llm_resp *r)
{
    const char *t;
    double v = r->logprobs.len ? expected_bin(r->logprobs.s) : -1;

    if (v >= 0)
        return v;
    for (t = r->text.s; t && *t; t++)
        if (*t >= '0' && *t <= '9')
            return *t < '0' + MC_GVF_BINS ? *t - '0' : -1;
    return -1;
}

static enum mc_code
served_score(const struct mc_value_view *s, void *state, size_t first, size_t n,
             struct mc_err *err)
{
    struct served *v = state;
    struct mc_llm_req req[MC_PLAN_MAX];
    struct mc_llm_resp resp[MC_PLAN_MAX];
    struct mc_buf prompt[MC_PLAN_MAX];
    size_t k, scored = 0;
    enum mc_code rc = MC_OK;

    if (n > MC_PLAN_MAX)
        n = MC_PLAN_MAX;
    memset(req, 0, sizeof(req));
    for (k = 0; k < n; k++) {
        struct mc_gvf_state st;

        mc_value_state(s, first + k, &st);
        mc_buf_init(&prompt[k]);
        mc_value_prompt(&st, mc_target_get(s->t, MC_OPT_BINS), &prompt[k]);
        req[k].model = v->model;
        req[k].system = mc_value_system;
        req[k].user = prompt[k].s ? prompt[k].s : "";
        req[k].seed = (unsigned)(first + k);
        req[k].n = 1;
        req[k].purpose = "value";
        req[k].ordinal = first + k;
        req[k].logprobs = 1;
        mc_llm_resp_init(&resp[k]);
    }
    mc_llm_run(&v->llm, req, n, resp);
    for (k = 0; k < n; k++) {
        double val = resp[k].ok ? value_of(&resp[k]) : -1;

        s->nodes[first + k].value = val;
        scored += val >= 0;
        if (!scored && k + 1 == n)
            rc = mc_err_set(err, MC_EIO, "%s", resp[k].ok
                                ? "the answer is no bin (0 to 4)"
                                : resp[k].error.s);
        mc_llm_resp_release(&resp[k]);
        mc_buf_release(&prompt[k]);
    }
    return rc;
}

static int
served_cost(void *state, struct mc_usage *u)
{
    struct served *v = state;

    mc_usage_view(u, &v->llm);
    return 1;
}

static void
served_restore(void *state, struct mc_usage *u)
{
    struct served *v = state;

    mc_usage_move(u, &v->llm);
}

const struct mc_valuer mc_valuer_served = {
    .name = "served",
    .open = served_open,
    .close = served_close,
    .score = served_score,
    .prior = NULL,
    .cost = served_cost,
    .restore = served_restore,
};
