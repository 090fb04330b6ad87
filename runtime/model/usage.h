/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * usage.h: what the model has cost, in one struct and one JSON shape.
 * The journal writes it on each node line and reads it back on resume;
 * the manifest's "usage" object is its models member. This is the one
 * place that writes and reads that JSON:
 *   usage  = {"requests":n,"tokens_in":n,"tokens_out":n,"cost":x,
 *             "models":{MODEL:counts, ...}}
 *   counts = {"requests":n,"tokens_in":n,"tokens_out":n,"cost":x}
 * A reader takes a missing or non-numeric member as 0, a missing
 * "models" as none, and skips a model entry without a name.
 */
#ifndef MC_USAGE_H
#define MC_USAGE_H

#include "llm.h"
#include "status.h"

struct cJSON;

/* Totals and the same counters per model. */
struct mc_usage {
    struct mc_llm_usage total;
    struct mc_llm_model_usage *models; /* owned, unless a view */
    size_t n_models;
};

#define MC_USAGE_INIT {{0, 0, 0, 0}, NULL, 0}

void mc_usage_init(struct mc_usage *u);

/* Free U's models (and their names); U is empty afterwards. Never call
 * it on a view. */
void mc_usage_release(struct mc_usage *u);

/* Set U to a view of L's usage: U borrows L's models, and is not to be
 * released; it is valid while L's usage does not change. */
void mc_usage_view(struct mc_usage *u, const struct mc_llm *l);

/* Replace L's usage with U's, moving U's models into L; U is empty
 * afterwards. */
void mc_usage_move(struct mc_usage *u, struct mc_llm *l);

/*
 * Add U to the JSON object O as the members of `usage` above (totals,
 * then "models"). MC_ENOMEM when cJSON cannot allocate; O may then hold
 * some of the members.
 */
enum mc_code mc_usage_write(const struct mc_usage *u, struct cJSON *o);

/* Add one member per model of U to the JSON object O, each a `counts`
 * object: the manifest's "usage" object. A model O already has gets
 * U's counts added to its own. Errors as mc_usage_write(). */
enum mc_code mc_usage_write_models(const struct mc_usage *u,
                                   struct cJSON *o);

/* Add the four counters of C to the JSON object O (a `counts`). */
enum mc_code mc_usage_write_counts(const struct mc_llm_usage *c,
                                   struct cJSON *o);

/*
 * Set U (initialised; its models are released first) from the JSON
 * object O, which may be NULL (all zero). MC_ENOMEM leaves U with the
 * models read so far.
 */
enum mc_code mc_usage_read(struct mc_usage *u, const struct cJSON *o);

#endif /* MC_USAGE_H */
