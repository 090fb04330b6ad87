/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * manifest.c: the writer of an entry's manifest and of its trajectory
 * from a search's outcome, and the bounded reading of its members that
 * show, cache list, bench and the report share. The grammar is in
 * manifest.h.
 */
#include "mc_setup.h"
#include "manifest.h"
#include "alloc.h"
#include "conf.h"
#include "hash.h"
#include "journal.h"
#include "json.h"
#include "lang.h"
#include "node.h"
#include "paths.h"
#include "prompt.h"
#include "proposer.h"
#include "search.h"
#include "target.h"
#include "usage.h"
#include "value.h"

#include <cjson/cJSON.h>
#include <time.h>

/* The manifest's model usage: requests, tokens and cost, in all and per
 * model, when the model wrote the variants; zeros otherwise. */
static void
manifest_usage(cJSON *m, const struct mc_search *s)
{
    struct mc_usage p = MC_USAGE_INIT, v = MC_USAGE_INIT;
    int costs = s && s->prop && s->prop->cost && s->prop->cost(s, &p);
    int vcosts;
    cJSON *obj;

    vcosts = s && s->valuer && s->valuer->cost &&
             s->valuer->cost(s->valuer_state, &v);
    cJSON_AddNumberToObject(m, "llm_requests",
                            (double)(p.total.requests + v.total.requests));
    cJSON_AddNumberToObject(m, "tokens_in",
                            (double)(p.total.tokens_in + v.total.tokens_in));
    cJSON_AddNumberToObject(m, "tokens_out", (double)(p.total.tokens_out +
                                                      v.total.tokens_out));
    cJSON_AddNumberToObject(m, "cost", p.total.cost + v.total.cost);
    if (costs) {
        cJSON_AddStringToObject(m, "critic_model", s->critic_model);
        cJSON_AddStringToObject(m, "prompt_version", mc_prompt_version());
    }
    if (!costs && !vcosts)
        return;
    obj = cJSON_AddObjectToObject(m, "usage");
    if (obj)
        mc_usage_write_models(&p, obj);
    if (obj && vcosts)
        mc_usage_write_models(&v, obj);
}

/* The manifest's build: compiler, flags, options and the include files
 * (the paths of INCLUDES' "HASH PATH" lines). */
static void
manifest_build(cJSON *m, const struct mc_target *t,
               const struct mc_buf *includes)
{
    cJSON *a, *obj;
    const char *p;
    size_t i;

    cJSON_AddStringToObject(m, "compiler", t->compiler);
    a = cJSON_AddArrayToObject(m, "flags");
    for (i = 0; a && i < t->flags.n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(t->flags.v[i]));
    obj = cJSON_AddObjectToObject(m, "options");
    for (i = 0; obj && i < MC_OPT__COUNT; i++)
        cJSON_AddStringToObject(obj, mc_target_opt_name((enum mc_opt)i),
                                mc_target_get(t, (enum mc_opt)i));
    a = cJSON_AddArrayToObject(m, "includes");
    for (p = includes->s; a && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > MC_KEY_HEX + 1) {
            char *path = mc_strndup(p + MC_KEY_HEX + 1, n - MC_KEY_HEX - 1);
            if (path)
                cJSON_AddItemToArray(a, cJSON_CreateString(path));
            mc_free(path);
        }
        p += n + (p[n] == '\n');
    }
}

/* The manifest's links: how each link file of T is compiled, for the
 * test executable. */
static void
manifest_links(cJSON *m, const struct mc_target *t)
{
    struct mc_strv words = MC_STRV_INIT;
    struct mc_buf cmd = MC_BUF_INIT;
    cJSON *a, *o;
    size_t i;

    if (!t->link.n || !(a = cJSON_AddArrayToObject(m, "links")))
        return;
    for (i = 0; i < t->link.n; i++) {
        mc_strv_release(&words);
        mc_buf_reset(&cmd);
        if (!mc_lang_of_path(t->link.v[i])) {
            /* An object or a library: linked as it is. */
        } else if (t->link_build &&
                   t->link_build[i].from != MC_LINK_FROM_SOURCE) {
            mc_target_link_command(t, i, &words);
        } else {
            mc_shell_split(t->compiler ? t->compiler : "", &words, NULL);
            mc_strv_extend(&words, &t->flags);
            mc_strv_push(&words, "-c");
            mc_strv_push(&words, t->link.v[i]);
        }
        if (words.n)
            mc_strv_join_shell(&words, &cmd);
        if (!(o = cJSON_CreateObject()))
            break;
        cJSON_AddStringToObject(o, "file", t->link.v[i]);
        cJSON_AddStringToObject(o, "flags_from",
                                mc_lang_of_path(t->link.v[i])
                                    ? mc_target_link_from(t, i)
                                    : "not compiled");
        cJSON_AddStringToObject(o, "command", cmd.s ? cmd.s : "");
        cJSON_AddItemToArray(a, o);
    }
    mc_strv_release(&words);
    mc_buf_release(&cmd);
}

/* The manifest's search: the best variant with its critique, and the
 * trajectory, one object per candidate. */
static void
manifest_trajectory(cJSON *m, const struct mc_search *s)
{
    cJSON *a;
    size_t i;

    if (s->ranking) {
        cJSON_AddStringToObject(m, "ranking", s->ranking);
        cJSON_AddStringToObject(m, "ranking_note", s->ranking_note.s
                                                       ? s->ranking_note.s
                                                       : "");
    }
    if (s->best >= 0) {
        cJSON_AddStringToObject(m, "best", s->nodes[s->best].label);
        cJSON_AddStringToObject(m, "critique",
                                s->nodes[s->best].critique
                                    ? s->nodes[s->best].critique
                                    : "");
    }
    a = cJSON_AddArrayToObject(m, "trajectory");
    for (i = 0; a && i < s->n; i++) {
        cJSON *e = mc_search_node_json(&s->nodes[i], MC_NODE_MANIFEST);

        if (!e)
            break;
        cJSON_AddItemToArray(a, e);
    }
}

/* The manifest's speedup_interval (the confirmed speedup's round's 99%
 * interval; null for the original), with a search's variant what the
 * speedup states (speedup_basis, speedup_median, speedup_why), load
 * (the machine's load around each round of the final confirmation; null
 * when none ran), search_seconds (null when no search ran) and with it
 * search_child_seconds. */
static void
manifest_interval(cJSON *m, const struct mc_search *s)
{
    cJSON *a = NULL;

    if (s && s->final_speedup > 0) {
        a = cJSON_AddArrayToObject(m, "speedup_interval");
        if (a) {
            cJSON_AddItemToArray(a, cJSON_CreateNumber(s->final_low));
            cJSON_AddItemToArray(a, cJSON_CreateNumber(s->final_high));
        }
        cJSON_AddStringToObject(m, "speedup_basis", s->final_bound
                                                        ? MC_BASIS_BOUND
                                                        : MC_BASIS_MEDIAN);
        cJSON_AddNumberToObject(m, "speedup_median", s->final_median);
        cJSON_AddStringToObject(m, "speedup_why",
                                s->final_why.s ? s->final_why.s : "");
    } else {
        cJSON_AddNullToObject(m, "speedup_interval");
    }
    if (s && s->final_rounds) {
        struct mc_timing t;

        memset(&t, 0, sizeof(t));
        t.rounds = s->final_rounds;
        memcpy(t.load, s->final_load, sizeof(t.load));
        cJSON_AddItemToObject(m, "load", mc_timing_load_json(&t));
    } else {
        cJSON_AddNullToObject(m, "load");
    }
    if (s) {
        cJSON_AddNumberToObject(m, "search_seconds", s->seconds);
        cJSON_AddNumberToObject(m, "search_child_seconds", s->child_seconds);
    } else {
        cJSON_AddNullToObject(m, "search_seconds");
    }
}

/* The manifest (DESIGN 1.6) of an entry, in the order of manifest.h's
 * grammar. */
char *
mc_manifest_write(const struct mc_target *t, const char *key,
                  const struct mc_manifest_outcome *o,
                  const struct mc_buf *includes)
{
    cJSON *m = cJSON_CreateObject();
    char created[32], cwd[PATH_MAX], *text = NULL;
    time_t now = time(NULL);
    struct tm tm;

    if (!m)
        return NULL;
    gmtime_r(&now, &tm);
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(m, "key", key);
    cJSON_AddStringToObject(m, "source", t->source);
    cJSON_AddStringToObject(m, "source_path", t->source_real);
    if (mc_path_cwd(cwd, sizeof(cwd)))
        cJSON_AddStringToObject(m, "directory", cwd);
    cJSON_AddStringToObject(m, "status", o->status);
    cJSON_AddStringToObject(m, "reason", o->reason);
    cJSON_AddNumberToObject(m, "speedup", o->speedup);
    manifest_interval(m, o->search);
    if (o->baseline >= 0) {
        cJSON_AddNumberToObject(m, "baseline_seconds", o->baseline);
        cJSON_AddNumberToObject(m, "best_seconds",
                                o->baseline / o->speedup);
    } else {
        cJSON_AddNullToObject(m, "baseline_seconds");
        cJSON_AddNullToObject(m, "best_seconds");
    }
    cJSON_AddStringToObject(m, "metric", mc_target_get(t, MC_OPT_METRIC));
    cJSON_AddNumberToObject(m, "candidates", (double)o->candidates);
    cJSON_AddNumberToObject(m, "correct_candidates", (double)o->correct);
    cJSON_AddStringToObject(m, "strategy", mc_target_get(t, MC_OPT_STRATEGY));
    cJSON_AddStringToObject(m, "proposer", mc_target_proposer(t));
    cJSON_AddStringToObject(m, "model", mc_conf_get(&t->conf, MC_SET_MODEL));
    manifest_usage(m, o->search);
    cJSON_AddStringToObject(m, "created", created);
    cJSON_AddStringToObject(m, "maxcode_version", PACKAGE_VERSION);
    manifest_build(m, t, includes);
    manifest_links(m, t);
    if (o->recipe_flags) {
        cJSON_AddStringToObject(m, "recipe_flags", o->recipe_flags);
        cJSON_AddStringToObject(m, "flags_warning", o->flags_warning
                                                        ? o->flags_warning
                                                        : "");
    }
    if (o->search)
        manifest_trajectory(m, o->search);
    text = cJSON_Print(m);
    cJSON_Delete(m);
    return text;
}

enum mc_code
mc_manifest_traj(const struct mc_search *s, struct mc_buf *out)
{
    struct mc_trajectory_head h;

    h.key = s->key;
    h.lang = mc_lang_get(s->t->lang)->key_name;
    h.strategy = s->strategy;
    h.proposer = s->prop->name;
    h.budget = s->budget;
    h.bins = mc_target_get(s->t, MC_OPT_BINS);
    h.gamma = s->gamma;
    h.ranking = s->ranking;
    h.original = s->t->text.s;
    return mc_trajectory_write(&h, s->nodes, s->n, out);
}

/* ---- reading ---- */

const char *
mc_manifest_str(const cJSON *m, const char *name)
{
    return mc_json_text(m, name, MC_MANIFEST_STR_MAX);
}

double
mc_manifest_num(const cJSON *m, const char *name, double dflt)
{
    return mc_json_num_or(m, name, 0, MC_MANIFEST_NUM_MAX, dflt);
}

int
mc_manifest_interval(const cJSON *m, double *low, double *high)
{
    const cJSON *a = mc_json_array(m, "speedup_interval");
    const cJSON *lo = cJSON_GetArraySize(a) == 2 ? cJSON_GetArrayItem(a, 0)
                                                 : NULL;
    const cJSON *hi = lo ? cJSON_GetArrayItem(a, 1) : NULL;

    *low = *high = -1;
    if (lo && hi && cJSON_IsNumber(lo) && cJSON_IsNumber(hi) &&
        lo->valuedouble > 0 &&
        hi->valuedouble >= lo->valuedouble &&
        hi->valuedouble <= MC_MANIFEST_NUM_MAX) {
        *low = lo->valuedouble;
        *high = hi->valuedouble;
        return 1;
    }
    return 0;
}

int
mc_manifest_bound(const cJSON *m, const char **why)
{
    *why = mc_manifest_str(m, "speedup_why");
    return !strcmp(mc_manifest_str(m, "speedup_basis"), MC_BASIS_BOUND);
}

enum mc_code
mc_manifest_dir(const cJSON *m, struct mc_buf *out)
{
    const char *dir = mc_manifest_str(m, "directory");
    const char *source = mc_manifest_str(m, "source");
    const char *sp = mc_manifest_str(m, "source_path");
    size_t ls = strlen(source), lr = strlen(sp);
    const char *slash = strrchr(sp, '/');

    mc_buf_reset(out);
    if (*dir)
        mc_buf_adds(out, dir);
    else if (sp[0] != '/')
        ; /* a copy from another machine: not known */
    else if (source[0] != '/' && lr > ls + 1 && sp[lr - ls - 1] == '/' &&
             !strcmp(sp + lr - ls, source) && !strstr(source, "../"))
        mc_buf_add(out, sp, lr - ls - 1);
    else
        mc_buf_add(out, sp, slash == sp ? 1 : (size_t)(slash - sp));
    return mc_buf_status(out);
}
