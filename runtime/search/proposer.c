/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proposer.c: the registry of proposers, which proposer a target gets,
 * and a round's candidates. See proposer.h.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "alloc.h"

/*
 * The registry: one row per proposer, each defined in its own file
 * (proposer_NAME.c) and declared here beside its row. proposer=auto
 * takes the first row that takes the target, so the order is one of
 * preference; it is also the order of the proposer= values.
 */
extern const struct mc_proposer mc_proposer_llm;     /* proposer_llm.c */
extern const struct mc_proposer mc_proposer_builtin; /* proposer_builtin.c */

static const struct mc_proposer *const proposers[] = {
    &mc_proposer_llm,
    &mc_proposer_builtin,
};

const struct mc_proposer *
mc_proposer_find(const char *name)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(proposers); i++)
        if (!strcmp(proposers[i]->name, name))
            return proposers[i];
    return NULL;
}

const char *
mc_proposer_name(size_t i)
{
    if (i < MC_ARRAY_SIZE(proposers))
        return proposers[i]->name;
    return i == MC_ARRAY_SIZE(proposers) ? "auto" : NULL;
}

const struct mc_proposer *
mc_proposer_of(const struct mc_target *t)
{
    const char *name = mc_target_get(t, MC_OPT_PROPOSER);
    size_t i;

    if (strcmp(name, "auto"))
        return mc_proposer_find(name);
    for (i = 0; i < MC_ARRAY_SIZE(proposers); i++)
        if (proposers[i]->automatic && proposers[i]->automatic(t))
            return proposers[i];
    return NULL;
}

/* Declared in target.h, with the target's other questions; here, beside
 * the registry it asks. */
const char *
mc_target_proposer(const struct mc_target *t)
{
    const struct mc_proposer *p = mc_proposer_of(t);

    return p ? p->name : mc_target_get(t, MC_OPT_PROPOSER);
}

void
mc_proposals_init(struct mc_proposals *p)
{
    size_t i;

    memset(p, 0, sizeof(*p));
    for (i = 0; i < MC_ARRAY_SIZE(p->v); i++)
        mc_buf_init(&p->v[i].code);
}

void
mc_proposals_release(struct mc_proposals *p)
{
    size_t i;

    for (i = 0; i < p->n; i++) {
        mc_free(p->v[i].label);
        mc_free(p->v[i].detail);
        mc_free(p->v[i].repeats);
        mc_buf_release(&p->v[i].code);
    }
    mc_proposals_init(p);
}
