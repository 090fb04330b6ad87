/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_value.c: the search's value model (strategy=gvf's ranker): the
 * first of value.c's registry that opens, the fallback to reward ranking
 * and the view of the search a value model reads. See search.h.
 */
#include "mc_setup.h"
#include "search.h"
#include "log.h"
#include "value.h"

void
mc_search_value_view(struct mc_search *s, struct mc_value_view *v)
{
    v->t = s->t;
    v->key = s->key;
    v->strategy = s->strategy;
    v->nodes = s->nodes;
    v->n = s->n;
}

enum mc_code
mc_value_open(struct mc_search *s)
{
    struct mc_value_view view;
    size_t i;

    mc_search_value_view(s, &view);
    s->ranking = "reward";
    for (i = 0; mc_valuer_at(i); i++) {
        struct mc_err err = MC_ERR_INIT;
        void *state = NULL;
        enum mc_code rc = mc_valuer_at(i)->open(&view, &state, &err);

        if (rc == MC_ENOMEM)
            return rc;
        if (rc == MC_OK) {
            s->valuer = mc_valuer_at(i);
            s->valuer_state = state;
            s->ranking = mc_valuer_at(i)->name;
            return MC_OK;
        }
        if (rc != MC_ENOENT) {
            mc_info("%s: the %s value model cannot be used: %s",
                    s->t->source, mc_valuer_at(i)->name, err.msg);
            mc_buf_addf(&s->ranking_note, "%sthe %s value model cannot be "
                        "used: %s", s->ranking_note.len ? "; " : "",
                        mc_valuer_at(i)->name, err.msg);
        }
    }
    if (!s->ranking_note.len)
        mc_buf_adds(&s->ranking_note, "no value model: MAXCODE_GVF_URL is "
                    "not set and this cache has none trained (maxcode gvf "
                    "train)");
    mc_info("%s: strategy=%s ranks by measured reward: %s", s->t->source,
            s->strategy, s->ranking_note.s);
    return mc_buf_status(&s->ranking_note);
}

void
mc_value_close(struct mc_search *s)
{
    if (s->valuer)
        s->valuer->close(s->valuer_state);
    s->valuer = NULL;
    s->valuer_state = NULL;
}

void
mc_value_score(struct mc_search *s, size_t first, size_t n)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_value_view view;
    size_t i;

    if (!s->valuer || !n || !strcmp(s->ranking, "reward"))
        return;
    mc_search_value_view(s, &view);
    if (!s->valuer->score(&view, s->valuer_state, first, n, &err))
        return;
    /* Reward ranking from here on; the model stays open for its cost. */
    mc_info("%s: the %s value model failed after %zu candidates (%s); "
            "ranking by measured reward", s->t->source, s->valuer->name,
            first, err.msg);
    mc_buf_reset(&s->ranking_note);
    mc_buf_addf(&s->ranking_note, "the %s value model failed after %zu "
                "candidates: %s", s->valuer->name, first, err.msg);
    s->ranking = "reward";
    for (i = 0; i < s->n; i++)
        s->nodes[i].value = -1;
}
