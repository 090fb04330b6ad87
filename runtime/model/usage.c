/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * usage.c: the model usage object, written and read back as JSON for the
 * journal (and for the manifest). See usage.h for its grammar.
 */
#include "mc_setup.h"
#include "usage.h"
#include "alloc.h"
#include "json.h"

#include <cjson/cJSON.h>

void
mc_usage_init(struct mc_usage *u)
{
    memset(u, 0, sizeof(*u));
}

void
mc_usage_release(struct mc_usage *u)
{
    size_t i;

    for (i = 0; i < u->n_models; i++)
        mc_free(u->models[i].model);
    mc_free(u->models);
    mc_usage_init(u);
}

void
mc_usage_view(struct mc_usage *u, const struct mc_llm *l)
{
    u->total = l->total;
    u->models = l->models;
    u->n_models = l->n_models;
}

void
mc_usage_move(struct mc_usage *u, struct mc_llm *l)
{
    size_t i;

    for (i = 0; i < l->n_models; i++)
        mc_free(l->models[i].model);
    mc_free(l->models);
    l->total = u->total;
    l->models = u->models;
    l->n_models = u->n_models;
    mc_usage_init(u);
}

enum mc_code
mc_usage_write_counts(const struct mc_llm_usage *c, cJSON *o)
{
    if (!cJSON_AddNumberToObject(o, "requests", (double)c->requests) ||
        !cJSON_AddNumberToObject(o, "tokens_in", (double)c->tokens_in) ||
        !cJSON_AddNumberToObject(o, "tokens_out", (double)c->tokens_out) ||
        !cJSON_AddNumberToObject(o, "cost", c->cost))
        return MC_ENOMEM;
    return MC_OK;
}

/* Add C's counters to those of the `counts` object M. */
static void
add_counts(cJSON *m, const struct mc_llm_usage *c)
{
    static const char *const names[] = {"requests", "tokens_in",
                                        "tokens_out", "cost"};
    double add[4];
    size_t i;

    add[0] = (double)c->requests;
    add[1] = (double)c->tokens_in;
    add[2] = (double)c->tokens_out;
    add[3] = c->cost;
    for (i = 0; i < 4; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(m, names[i]);

        if (v && cJSON_IsNumber(v))
            cJSON_SetNumberHelper(v, v->valuedouble + add[i]);
    }
}

enum mc_code
mc_usage_write_models(const struct mc_usage *u, cJSON *o)
{
    size_t i;

    for (i = 0; i < u->n_models; i++) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(o, u->models[i].model);

        if (cJSON_IsObject(m)) {
            /* A model already there (the value model can be the
             * policy's): the sums. */
            add_counts(m, &u->models[i].u);
            continue;
        }
        m = cJSON_AddObjectToObject(o, u->models[i].model);
        if (!m || mc_usage_write_counts(&u->models[i].u, m))
            return MC_ENOMEM;
    }
    return MC_OK;
}

enum mc_code
mc_usage_write(const struct mc_usage *u, cJSON *o)
{
    cJSON *models;

    if (mc_usage_write_counts(&u->total, o))
        return MC_ENOMEM;
    models = cJSON_AddObjectToObject(o, "models");
    if (!models)
        return MC_ENOMEM;
    return mc_usage_write_models(u, models);
}

/* A count or a cost: a number in [0, 2^53], else 0. A damaged journal
 * line must not reach a cast to an integer with -5 or 1e300. */
static double
num(const cJSON *o, const char *name)
{
    return mc_json_num_or(o, name, 0, MC_JSON_INT_MAX, 0);
}

static void
read_counts(const cJSON *o, struct mc_llm_usage *c)
{
    c->requests = (unsigned long long)num(o, "requests");
    c->tokens_in = (unsigned long long)num(o, "tokens_in");
    c->tokens_out = (unsigned long long)num(o, "tokens_out");
    c->cost = num(o, "cost");
}

enum mc_code
mc_usage_read(struct mc_usage *u, const cJSON *o)
{
    const cJSON *all = mc_json_object(o, "models"), *m;

    mc_usage_release(u);
    read_counts(o, &u->total);
    cJSON_ArrayForEach(m, all) {
        struct mc_llm_model_usage *v;

        if (!m->string)
            continue;
        v = mc_realloc(u->models, (u->n_models + 1) * sizeof(*v));
        if (!v)
            return MC_ENOMEM;
        u->models = v;
        v = &v[u->n_models];
        v->model = mc_strdup(m->string);
        if (!v->model)
            return MC_ENOMEM;
        read_counts(m, &v->u);
        u->n_models++;
    }
    return MC_OK;
}
