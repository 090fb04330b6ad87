/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proposer.c: the registry of proposers and a round's candidates. See
 * proposer.h.
 */
#include "mc_setup.h"
#include "proposer.h"
#include "alloc.h"

/* The registry: one row per proposer. */
static const struct mc_proposer *const proposers[] = {
    &mc_proposer_builtin,
    &mc_proposer_llm,
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
        mc_buf_release(&p->v[i].code);
    }
    mc_proposals_init(p);
}
