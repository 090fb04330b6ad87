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

/* The node of S, or else the proposal of OUT (numbered after S's
 * nodes), whose code is CODE but for whitespace and was judged or will
 * be at least as strictly as a proposal with SANITIZE: its index, or
 * -1. */
static int
repeat_of(const struct mc_search *s, const struct mc_proposals *out,
          const struct mc_buf *code, int sanitize)
{
    const struct mc_builtin *b = s->prop_state;
    size_t j;

    for (j = 0; j < s->n; j++)
        if (s->nodes[j].code.s &&
            (!sanitize || mc_builtin_rewrites(b, s->nodes[j].tag)) &&
            mc_search_same_code(s->nodes[j].code.s, code->s))
            return (int)j;
    for (j = 0; j < out->n; j++)
        if ((!sanitize || out->v[j].sanitize) &&
            mc_search_same_code(out->v[j].code.s, code->s))
            return (int)(s->n + j);
    return -1;
}

/* At most this many repeats are passed over in one round: the space of
 * knob sets is large, and each costs a render. */
#define REPEATS_MAX 256

/*
 * Knob set TAG from PARENT as the next proposal of OUT, unless its code
 * repeats what a node or an earlier proposal has: then it is noted in
 * REPEATS ("LABEL (candidate N)") and avoided from now, taking that
 * verdict without a build, a run or a place in the budget. Returns 1
 * when it was proposed, 0 for a repeat, -1 when out of memory.
 */
static int
propose_one(struct mc_search *s, unsigned long tag, int parent,
            struct mc_proposals *out, struct mc_buf *repeats,
            struct mc_err *err)
{
    struct mc_builtin *b = s->prop_state;
    const struct mc_buf *orig = &s->ev->orig_text;
    struct mc_proposal *p = &out->v[out->n];
    struct mc_buf label = MC_BUF_INIT;
    int same;

    mc_builtin_label(b, tag, &label);
    p->parent = parent;
    p->tag = tag;
    p->sanitize = mc_builtin_rewrites(b, tag);
    if (mc_buf_status(&label) ||
        mc_builtin_render(b, tag, orig->s, orig->len, &p->code)) {
        mc_buf_release(&label);
        mc_buf_release(&p->code);
        mc_err_set(err, MC_ENOMEM, "out of memory");
        return -1;
    }
    same = repeat_of(s, out, &p->code, p->sanitize);
    if (same >= 0 && mc_builtin_avoid(b, tag)) {
        mc_buf_release(&label);
        mc_err_set(err, MC_ENOMEM, "out of memory");
        return -1;
    }
    if (same >= 0) {
        mc_verbose("%s: %s repeats candidate %d's code: its verdict, not "
                   "built, run or counted", s->t->source, label.s,
                   same + 1);
        mc_buf_addf(repeats, "%s%s (candidate %d)", repeats->len ? "; " : "",
                    label.s, same + 1);
        mc_buf_release(&label);
        mc_buf_release(&p->code);
        return 0;
    }
    p->label = mc_buf_detach(&label, NULL);
    if (repeats->len)
        p->repeats = mc_buf_detach(repeats, NULL);
    out->n++;
    return 1;
}

/*
 * Proposals for PLAN into OUT: each run of equal slots is one choice of
 * that many knob sets, chosen again for those whose code repeated a
 * judged or proposed one (two runs may choose the same: each chooses
 * from what is judged). The repeats passed over go with the next
 * proposal (node.h's "repeats"), or are said here when none follows.
 */
static enum mc_code
propose_plan(struct mc_search *s, const struct mc_prop_node *view,
             const struct mc_plan *plan, struct mc_proposals *out,
             struct mc_err *err)
{
    struct mc_builtin *b = s->prop_state;
    struct mc_buf repeats = MC_BUF_INIT;
    unsigned long tags[MC_PLAN_MAX], run[MC_PLAN_MAX];
    int parents[MC_PLAN_MAX];
    size_t i, j, m, t, passed = 0;
    int r = 0;

    b->pending = run;
    for (i = 0; i < plan->n && out->n < plan->want; i = j) {
        const struct mc_plan_slot *sl = &plan->slot[i];
        size_t k;

        for (j = i + 1; j < plan->n && plan->slot[j].parent == sl->parent &&
                        plan->slot[j].repair == sl->repair;
             j++)
            ;
        k = j - i < plan->want - out->n ? j - i : plan->want - out->n;
        b->npending = 0;
        /* What the run proposed is pending for the rest of it, and a
         * repeat is avoided for good: each choice is new, and the space
         * ends. */
        while (k > 0 && r >= 0 && passed < REPEATS_MAX &&
               (m = choose(b, view, s->n, sl->parent, k, sl->repair, tags,
                           parents)) > 0)
            for (t = 0; t < m && r >= 0; t++) {
                r = propose_one(s, tags[t], parents[t], out, &repeats, err);
                if (r > 0)
                    run[b->npending++] = tags[t];
                k -= r > 0;
                passed += r == 0;
            }
    }
    b->pending = NULL;
    b->npending = 0;
    if (r >= 0 && repeats.len)
        mc_info("%s: the built-in proposer passed over repeats of judged "
                "code (%s), with nothing new to propose after them",
                s->t->source, repeats.s);
    mc_buf_release(&repeats);
    return r < 0 ? MC_ENOMEM : MC_OK;
}

static enum mc_code
builtin_propose(struct mc_search *s, const struct mc_plan *plan,
                struct mc_proposals *out, struct mc_err *err)
{
    struct mc_prop_node *view = mc_search_view(s);
    enum mc_code rc;

    if (!view)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = propose_plan(s, view, plan, out, err);
    mc_free(view);
    if (!rc && !out->n)
        mc_info("%s: the built-in proposer has nothing new to try after "
                "%zu candidates", s->t->source, s->n);
    return rc;
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
