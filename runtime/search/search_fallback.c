/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search_fallback.c: why the original stays after a search: the reason
 * for people (the manifest, the log) and the counter `maxcode stats`
 * shows it under. See search.h.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "search.h"

void
mc_fallback_explain(struct mc_search *s, double min_speedup)
{
    int bc = mc_search_best_correct(s);

    if (s->endpoint_failed)
        return; /* the reason says what failed */
    if (bc >= 0)
        mc_buf_addf(&s->reason, "no variant beat min-speedup %.2f beyond "
                    "the noise: the best was %.2fx (%s); %zu candidates, "
                    "%zu correct", min_speedup, s->nodes[bc].speedup,
                    s->nodes[bc].label, s->n, mc_search_correct(s));
    else
        mc_buf_addf(&s->reason, "no correct variant among %zu "
                    "candidates (best speedup 0x)", s->n);
    if (s->prop->explain)
        s->prop->explain(s, &s->reason);
}

/* Whether a budget other than budget= cut S short: MAXCODE_TIME_LIMIT,
 * or the proposer's own (max-tokens, max-cost), which its explain()
 * reports. */
static int
cut_short(const struct mc_search *s)
{
    struct mc_buf why = MC_BUF_INIT;
    int cut;

    if (s->n >= s->budget)
        return 0;
    if (s->time_limit_s > 0 && s->loop_s >= s->time_limit_s)
        return 1;
    if (!s->prop || !s->prop->explain)
        return 0;
    s->prop->explain(s, &why);
    cut = why.len > 0;
    mc_buf_release(&why);
    return cut;
}

enum mc_stat
mc_fallback_reason_of(const struct mc_search *s, int no_device)
{
    size_t i;

    if (no_device)
        return MC_STAT_FALLBACK_NO_DEVICE;
    if (!s)
        return MC_STAT_FALLBACK_OTHER;
    if (s->endpoint_failed)
        return MC_STAT_FALLBACK_NO_MODEL;
    if (cut_short(s))
        return MC_STAT_FALLBACK_BUDGET;
    if (!s->n || mc_search_best_correct(s) >= 0)
        return MC_STAT_FALLBACK_NO_SPEEDUP;
    for (i = 0; i < s->n; i++)
        if (!s->nodes[i].compile_error)
            return MC_STAT_FALLBACK_INCORRECT;
    return MC_STAT_FALLBACK_NO_BUILD;
}
