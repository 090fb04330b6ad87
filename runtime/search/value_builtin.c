/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * value_builtin.c: the built-in value model, CACHE_DIR/gvf/model as
 * `maxcode gvf train` fitted it (gvfmodel.h): no request, no cost. It
 * scores judged nodes and, for the built-in proposer, the knob sets it
 * could try next. See value.h.
 */
#include "mc_setup.h"
#include "value.h"
#include "alloc.h"
#include "gvfmodel.h"
#include "node.h"
#include "target.h"

static enum mc_code
builtin_open(const struct mc_value_view *s, void **state, struct mc_err *err)
{
    struct mc_gvf_model *m = mc_malloc(sizeof(*m));
    enum mc_code rc;

    if (!m) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_gvf_model_load(mc_conf_get(&s->t->conf, MC_SET_CACHE_DIR),
                           MC_VALUE_MODEL_FILE, m, err);
    if (!rc) {
        *state = m;
        m = NULL;
    }
out:
    mc_free(m);
    return rc;
}

static void
builtin_close(void *state)
{
    mc_free(state);
}

/* The value of ST under model M. */
static double
value_of(const struct mc_gvf_model *m, const struct mc_gvf_state *st)
{
    double x[MC_GVF_FEATURES];

    if (mc_gvf_features(st, x))
        return -1;
    return mc_gvf_model_value(m, x, st->ut);
}

static enum mc_code
builtin_score(const struct mc_value_view *s, void *state, size_t first, size_t n,
              struct mc_err *err)
{
    size_t i;

    (void)err;
    for (i = first; i < first + n; i++) {
        struct mc_gvf_state st;

        mc_value_state(s, i, &st);
        s->nodes[i].value = value_of(state, &st);
    }
    return MC_OK;
}

static double
builtin_prior(const struct mc_value_view *s, void *state, int parent,
              const char *label, const char *code, size_t len)
{
    struct mc_gvf_state st;

    if (parent >= 0) {
        mc_value_state(s, (size_t)parent, &st);
        st.depth++;
    } else {
        /* A child of the original: as good as the original so far. */
        memset(&st, 0, sizeof(st));
        st.lang = s->t->lang;
        st.orig = s->t->text.s;
        st.orig_len = s->t->text.len;
        st.verdict = "correct";
        st.correct = 1;
        st.speedup = 1;
        st.depth = 1;
    }
    st.label = label;
    st.code = code;
    st.code_len = len;
    return value_of(state, &st);
}

const struct mc_valuer mc_valuer_builtin = {
    .name = "built-in",
    .open = builtin_open,
    .close = builtin_close,
    .score = builtin_score,
    .prior = builtin_prior,
    .cost = NULL,
    .restore = NULL,
};
