/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * node.c: a search node's life cycle and its one JSON form, written for
 * the journal, an entry's trajectory and the manifest, and read back
 * with every member bounded. The grammar is in node.h.
 */
#include "mc_setup.h"
#include "node.h"
#include "alloc.h"
#include "json.h"
#include "rollout.h"

#include <cjson/cJSON.h>

void
mc_search_node_init(struct mc_search_node *nd)
{
    memset(nd, 0, sizeof(*nd));
    mc_buf_init(&nd->code);
    nd->parent = -1;
    nd->value = -1;
    nd->duplicate_of = -1;
}

void
mc_search_node_release(struct mc_search_node *nd)
{
    mc_free(nd->label);
    mc_free(nd->detail);
    mc_free(nd->critique);
    mc_free(nd->repeats);
    mc_buf_release(&nd->code);
}

/* The machine's load around ND's timing rounds, when it was timed: the
 * members "load" (one mc_load_round_json() object per round) and, when
 * a round was kept with its load changing, "load_changed". */
static void
add_load(cJSON *o, const struct mc_search_node *nd)
{
    cJSON *a;
    size_t i;

    if (!nd->load_rounds)
        return;
    a = cJSON_AddArrayToObject(o, "load");
    for (i = 0; a && i < nd->load_rounds && i < MC_TIMING_ROUNDS; i++)
        cJSON_AddItemToArray(a, mc_load_round_json(&nd->load[i]));
    if (nd->load_changed)
        cJSON_AddBoolToObject(o, "load_changed", 1);
}

cJSON *
mc_search_node_json(const struct mc_search_node *nd, enum mc_node_form form)
{
    int full = form == MC_NODE_JOURNAL;
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "parent", nd->parent);
    if (full) {
        cJSON_AddNumberToObject(o, "depth", nd->depth);
        cJSON_AddNumberToObject(o, "tag", (double)nd->tag);
    }
    cJSON_AddStringToObject(o, full ? "label" : "variant",
                            nd->label ? nd->label : "");
    cJSON_AddStringToObject(o, "verdict", mc_verdict_name(nd->verdict));
    if (full) {
        cJSON_AddBoolToObject(o, "correct", nd->correct);
        cJSON_AddBoolToObject(o, "compile_error", nd->compile_error);
        cJSON_AddBoolToObject(o, "confirmed", nd->confirmed);
    }
    cJSON_AddNumberToObject(o, "speedup", nd->speedup);
    if (full)
        cJSON_AddNumberToObject(o, "reward", nd->reward);
    else
        cJSON_AddBoolToObject(o, "confirmed", nd->confirmed);
    cJSON_AddNumberToObject(o, "u", nd->u);
    cJSON_AddNumberToObject(o, "fr", nd->fr);
    cJSON_AddNumberToObject(o, "ut", nd->ut);
    if (nd->value >= 0)
        cJSON_AddNumberToObject(o, "value", nd->value);
    if (full)
        cJSON_AddStringToObject(o, "detail", nd->detail ? nd->detail : "");
    if (nd->duplicate_of >= 0)
        cJSON_AddNumberToObject(o, "duplicate_of", nd->duplicate_of);
    if (nd->repeats && *nd->repeats)
        cJSON_AddStringToObject(o, "repeats", nd->repeats);
    if (full)
        add_load(o, nd);
    cJSON_AddStringToObject(o, "critique", nd->critique ? nd->critique : "");
    if (full)
        cJSON_AddStringToObject(o, "code", nd->code.s ? nd->code.s : "");
    return o;
}

static enum mc_verdict
verdict_of(const char *name)
{
    enum mc_verdict v = MC_VERDICT_REJECTED;
    int k;

    for (k = 0; k <= MC_VERDICT_REJECTED; k++)
        if (!strcmp(name, mc_verdict_name((enum mc_verdict)k)))
            v = (enum mc_verdict)k;
    return v;
}

/* Member NAME of O as an integer in [LO, HI], else DEF: a damaged or
 * crafted line (a journal, an entry's TRAJ) must not reach a cast to
 * an integer with 1e300 or inf. */
static long long
int_in(const cJSON *o, const char *name, long long lo, long long hi,
       long long def)
{
    long long v = def;

    (void)mc_json_int(o, name, lo, hi, &v);
    return v;
}

enum mc_code
mc_search_node_parse(const cJSON *o, struct mc_search_node *nd)
{
    /* Strings of any length: a node's code is a whole source. */
    const size_t any = SIZE_MAX;

    nd->parent = (int)int_in(o, "parent", -1, INT_MAX, -1);
    nd->depth = (int)int_in(o, "depth", 0, INT_MAX, 1);
    nd->tag = (unsigned long)int_in(o, "tag", 0, 4294967295LL, 0);
    nd->verdict = verdict_of(mc_json_text(o, "verdict", any));
    nd->correct = mc_json_true(o, "correct");
    nd->compile_error = mc_json_true(o, "compile_error");
    nd->confirmed = mc_json_true(o, "confirmed");
    nd->speedup = mc_json_num_or(o, "speedup", 0, 1e9, 0);
    nd->reward = mc_json_num_or(o, "reward", 0, 1e9, 0);
    nd->u = mc_json_num_or(o, "u", 0, 1e9, 0);
    nd->fr = (int)int_in(o, "fr", 0, MC_ROLLOUT_BINS - 1, 0);
    nd->ut = mc_json_num_or(o, "ut", 0, MC_ROLLOUT_BINS - 1, 0);
    nd->value = mc_json_num_or(o, "value", 0, MC_ROLLOUT_BINS - 1, -1);
    nd->label = mc_strdup(mc_json_text(o, "label", any));
    nd->detail = mc_strdup(mc_json_text(o, "detail", any));
    nd->critique = mc_strdup(mc_json_text(o, "critique", any));
    nd->duplicate_of = (int)int_in(o, "duplicate_of", -1, INT_MAX, -1);
    if (*mc_json_text(o, "repeats", any) &&
        !(nd->repeats = mc_strdup(mc_json_text(o, "repeats", any))))
        return MC_ENOMEM;
    if (!nd->label || !nd->detail || !nd->critique ||
        mc_buf_adds(&nd->code, mc_json_text(o, "code", any)))
        return MC_ENOMEM;
    return MC_OK;
}
