/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proposer_builtin.c: the built-in proposer (proposer=builtin) behind
 * the proposer interface: knob sets chosen, rendered and learnt from by
 * propose.c, no model. See proposer.h and propose.h.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "alloc.h"
#include "eval.h"
#include "log.h"
#include "builtin.h"
#include "search.h"
#include "value.h"

/*
 * The version of what the built-in proposer proposes: the knob table
 * (propose.c), how it chooses from it and how it renders a knob set.
 * Bump it when a change makes other variants, so that the cache stops
 * serving the old ones. Version 1 hashes nothing: the keys made before
 * the proposer had an identity stay valid.
 */
#define BUILTIN_VERSION 1

/* The key's part of a built-in search: BUILTIN_VERSION from 2 on. The
 * proposer reads no setting that the options do not already key. */
static void
builtin_identity(const struct mc_target *t, const struct mc_key_versions *v,
                 struct mc_hash *h)
{
#if BUILTIN_VERSION > 1
    char n[16];

    snprintf(n, sizeof(n), "%d", BUILTIN_VERSION);
    mc_hash_field_str(h, "builtin-version", n);
#else
    (void)h;
#endif
    (void)t;
    (void)v;
}

/* proposer=auto falls back on the built-in proposer: it needs nothing
 * configured. */
static int
builtin_automatic(const struct mc_target *t)
{
    (void)t;
    return 1;
}

/* The profile of the original on the user's inputs into P (a gcov
 * build: GCC's C and C++ only). Without one the proposer goes by the
 * code alone, and says so. Returns 1 when there is a profile. */
static int
profile(struct mc_search *s, struct mc_profile *p)
{
    struct mc_err perr = MC_ERR_INIT;

    if (mc_eval_profile_parsed(s->ev, p, &perr) == MC_OK && p->count)
        return 1;
    mc_verbose("%s: no profile of the original (%s); the built-in proposer "
             "goes by the code", s->t->source,
             perr.msg[0] ? perr.msg : "none");
    mc_profile_release(p);
    return 0;
}

/* The value model's prior for a child of PARENT with knob set TAG: its
 * label and code rendered as they would be proposed. */
static double
prior(void *arg, int parent, unsigned long tag)
{
    struct mc_search *s = arg;
    struct mc_builtin *b = s->prop_state;
    const struct mc_buf *orig = &s->ev->orig_text;
    struct mc_buf label = MC_BUF_INIT, code = MC_BUF_INIT;
    struct mc_value_view view;
    double v = -1;

    mc_search_value_view(s, &view);
    mc_builtin_label(b, tag, &label);
    if (!mc_buf_status(&label) &&
        mc_builtin_render(b, tag, orig->s, orig->len, &code) == MC_OK)
        v = s->valuer->prior(&view, s->valuer_state, parent, label.s,
                             code.s, code.len);
    mc_buf_release(&label);
    mc_buf_release(&code);
    return v;
}

static enum mc_code
builtin_init(struct mc_search *s, struct mc_err *err)
{
    struct mc_builtin *b = mc_calloc(1, sizeof(*b));
    const struct mc_buf *orig = &s->ev->orig_text; /* mc_eval_prepare() */
    struct mc_profile p;
    enum mc_code rc;

    if (!b)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    s->prop_state = b;
    mc_profile_init(&p);
    if (s->t->lang != MC_LANG_CUDA)
        profile(s, &p);
    rc = mc_builtin_init(b, s->t, orig->s, orig->len, p.count,
                         p.count ? p.nlines + 1 : 0, err);
    mc_profile_release(&p);
    if (!rc && s->valuer && s->valuer->prior) {
        b->prior = prior;
        b->prior_arg = s;
    }
    return rc;
}

static void
builtin_release(struct mc_search *s)
{
    if (s->prop_state)
        mc_builtin_release(s->prop_state);
    mc_free(s->prop_state);
    s->prop_state = NULL;
}

/*
 * Choose up to K knob sets from PARENT (REPAIR: fixes of it) among the
 * N nodes of VIEW into TAGS, their parents into PARENTS, falling back to
 * the original when PARENT's neighbourhood is exhausted. Returns how
 * many.
 */
static size_t
choose(struct mc_builtin *b, const struct mc_prop_node *view, size_t n,
       int parent, size_t k, int repair, unsigned long *tags, int *parents)
{
    size_t got = 0, i;

    mc_builtin_choose(b, view, n, parent, k, repair, tags, &got);
    for (i = 0; i < got; i++)
        parents[i] = parent;
    if (got < k && parent >= 0) {
        size_t more = 0;
        mc_builtin_choose(b, view, n, -1, k - got, 0, tags + got, &more);
        /* Drop duplicates of what PARENT's round already holds. */
        for (i = 0; i < more && got < k; i++) {
            size_t j;
            int dup = 0;
            for (j = 0; j < got; j++)
                dup |= tags[j] == tags[got + i];
            if (!dup) {
                tags[got] = tags[got + i];
                parents[got++] = -1;
            }
        }
    }
    return got;
}

/* Knob sets for PLAN into TAGS and PARENTS: each run of equal slots is
 * one choice of that many. Returns how many. */
static size_t
choose_plan(struct mc_builtin *b, const struct mc_prop_node *view,
            size_t n, const struct mc_plan *plan, unsigned long *tags,
            int *parents)
{
    size_t got = 0, i, j;

    for (i = 0; i < plan->n && got < plan->want; i = j) {
        const struct mc_plan_slot *sl = &plan->slot[i];
        size_t k;

        for (j = i + 1; j < plan->n && plan->slot[j].parent == sl->parent &&
                        plan->slot[j].repair == sl->repair;
             j++)
            ;
        k = j - i < plan->want - got ? j - i : plan->want - got;
        got += choose(b, view, n, sl->parent, k, sl->repair, tags + got,
                      parents + got);
    }
    return got;
}

static enum mc_code
builtin_propose(struct mc_search *s, const struct mc_plan *plan,
                struct mc_proposals *out, struct mc_err *err)
{
    struct mc_builtin *b = s->prop_state;
    const struct mc_buf *orig = &s->ev->orig_text;
    struct mc_prop_node *view = mc_search_view(s);
    unsigned long tags[MC_PLAN_MAX];
    int parents[MC_PLAN_MAX];
    size_t got, i;

    if (!view)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    got = choose_plan(b, view, s->n, plan, tags, parents);
    mc_free(view);
    if (!got)
        mc_info("%s: the built-in proposer has nothing new to try after "
                "%zu candidates", s->t->source, s->n);
    for (i = 0; i < got; i++) {
        struct mc_proposal *p = &out->v[out->n++];
        struct mc_buf label = MC_BUF_INIT;

        p->parent = parents[i];
        p->tag = tags[i];
        p->sanitize = mc_builtin_rewrites(b, tags[i]);
        mc_builtin_label(b, tags[i], &label);
        p->label = mc_buf_detach(&label, NULL);
        if (!p->label ||
            mc_builtin_render(b, tags[i], orig->s, orig->len, &p->code))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    return MC_OK;
}

/* Learn from node I (bans and blame); its critique into OUT. */
static void
learn(struct mc_search *s, size_t i, struct mc_buf *out)
{
    struct mc_prop_node *view = mc_search_view(s);
    const char *detail = s->nodes[i].detail;

    if (!view)
        return;
    mc_builtin_learn(s->prop_state, view, i, detail ? detail : "", out);
    mc_free(view);
}

static void
builtin_critique(struct mc_search *s, size_t first, size_t n)
{
    size_t i;

    for (i = first; i < first + n; i++) {
        struct mc_buf crit = MC_BUF_INIT;

        learn(s, i, &crit);
        s->nodes[i].critique = mc_buf_detach(&crit, NULL);
    }
}

static void
builtin_replay(struct mc_search *s, size_t i)
{
    struct mc_buf scratch = MC_BUF_INIT;

    learn(s, i, &scratch);
    mc_buf_release(&scratch);
}

static void
builtin_settled(struct mc_search *s)
{
    mc_builtin_remember(s->prop_state, s->nodes[s->best].tag,
                        mc_conf_get(&s->t->conf, MC_SET_CACHE_DIR));
}

const struct mc_proposer mc_proposer_builtin = {
    .name = "builtin",
    .k = 4,
    .k_flat = 1, /* one at a time: each learns from the last */
    .critique_together = 0,
    .identity = builtin_identity,
    .automatic = builtin_automatic,
    .init = builtin_init,
    .release = builtin_release,
    .propose = builtin_propose,
    .critique = builtin_critique,
    .replay = builtin_replay,
    .settled = builtin_settled,
};
