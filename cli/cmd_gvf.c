/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_gvf.c: the value model's data and its built-in form.
 *
 *   maxcode rollouts export [-o FILE] [--split SHARE] [KEY...]
 *       one JSON record per node of every search this cache recorded
 *       (or of the entries KEY...), grammar in doc/internals/rollouts.md
 *   maxcode gvf train [-o MODEL] [--split SHARE]
 *       fit the built-in value model (gvfmodel.h) on those records, into
 *       CACHE_DIR/gvf/model unless -o says otherwise; with SHARE < 1
 *       the problems on the validation side are held out and its
 *       accuracy printed
 *
 * Both read the trajectories that cache entries keep (TRAJ, journal.h);
 * entries stored before they did, or by no search, have none and are
 * skipped.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "eval.h"
#include "file.h"
#include "gvfmodel.h"
#include "hash.h"
#include "journal.h"
#include "lang.h"
#include "log.h"
#include "rollout.h"
#include "value.h"

#include <cjson/cJSON.h>
#include <math.h>

/* What a visit of the cache's trajectories does with each. */
typedef enum mc_code (*visit_fn)(const struct mc_trajectory *t,
                                 const struct mc_rollout_node *lab,
                                 void *arg);

struct walk {
    size_t entries, searches, skipped, nodes;
};

/* The labels of T's nodes into LAB (T->n of them). */
static void
label_nodes(const struct mc_trajectory *t, struct mc_rollout_node *lab)
{
    size_t i;

    for (i = 0; i < t->n; i++) {
        lab[i].parent = t->nodes[i].parent;
        lab[i].depth = t->nodes[i].depth;
        lab[i].fr = t->nodes[i].fr;
    }
    mc_rollout_label(lab, t->n, t->gamma);
}

/* Visit the trajectory of the entry file PATH, if it has one. */
static enum mc_code
visit_entry(const char *path, visit_fn fn, void *arg, struct walk *w)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_entry e;
    struct mc_trajectory t;
    struct mc_rollout_node *lab = NULL;
    enum mc_code rc = MC_OK;

    mc_entry_init(&e);
    mc_trajectory_init(&t);
    w->entries++;
    if (mc_entry_read_file(path, &e, &err) || !e.trajectory.len ||
        mc_trajectory_parse(e.trajectory.s, e.trajectory.len, &t, &err)) {
        if (err.code)
            mc_info("%s: skipped: %s", path, err.msg);
        w->skipped++;
        goto out;
    }
    lab = mc_calloc(t.n + 1, sizeof(*lab));
    if (!lab) {
        rc = MC_ENOMEM;
        goto out;
    }
    label_nodes(&t, lab);
    w->searches++;
    w->nodes += t.n;
    rc = fn(&t, lab, arg);
out:
    mc_free(lab);
    mc_trajectory_release(&t);
    mc_entry_release(&e);
    return rc;
}

/* Visit every trajectory of cache C, or of the entries KEYS (N). */
static enum mc_code
walk(struct mc_cache *c, char **keys, int n, visit_fn fn, void *arg,
     struct walk *w)
{
    struct mc_cache_items items;
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    int i;

    memset(w, 0, sizeof(*w));
    for (i = 0; i < n && !rc; i++) {
        mc_buf_reset(&path);
        if (strlen(keys[i]) != MC_KEY_HEX ||
            mc_cache_path(c, keys[i], ".mce", &path) ||
            access(path.s, R_OK)) {
            mc_error("rollouts: no entry '%s' in the cache", keys[i]);
            rc = MC_ENOENT;
        } else {
            rc = visit_entry(path.s, fn, arg, w);
        }
    }
    mc_buf_release(&path);
    if (n || rc)
        return rc;
    if ((rc = mc_cache_scan(c, &items, NULL)))
        return rc;
    for (i = 0; i < (int)items.n && !rc; i++)
        rc = visit_entry(items.v[i].path, fn, arg, w);
    mc_cache_items_release(&items);
    return rc;
}

/* The language of a trajectory's key name ("c", "c++", "cuda"). */
static enum mc_lang
lang_of(const char *name)
{
    int i;

    for (i = 0; i < MC_LANG__COUNT; i++)
        if (!strcmp(mc_lang_get((enum mc_lang)i)->key_name, name))
            return (enum mc_lang)i;
    return MC_LANG_C;
}

/* Node I of T as a value model's state (borrowing from T). */
static void
state_of(const struct mc_trajectory *t, size_t i, struct mc_gvf_state *st)
{
    mc_value_state_of(&t->nodes[i], lang_of(t->lang), &t->original, st);
}

/* ---- rollouts export ---- */

struct export {
    struct mc_buf out;     /* the records */
    double split;          /* the train share */
    size_t records;
};

/* Record I of T (labels LAB) as one JSON line onto X->out. */
static enum mc_code
export_record(struct export *x, const struct mc_trajectory *t,
              const struct mc_rollout_node *lab, size_t i)
{
    const struct mc_search_node *nd = &t->nodes[i];
    struct mc_gvf_state st;
    struct mc_buf prompt = MC_BUF_INIT;
    cJSON *o = cJSON_CreateObject(), *fb;
    char *text = NULL;
    enum mc_code rc = MC_ENOMEM;

    state_of(t, i, &st);
    if (!o || mc_value_prompt(&st, t->bins, &prompt))
        goto out;
    cJSON_AddStringToObject(o, "problem", t->key);
    cJSON_AddStringToObject(o, "lang", t->lang);
    cJSON_AddStringToObject(o, "split", mc_rollout_train_side(t->key,
                                                              x->split)
                                            ? "train"
                                            : "val");
    cJSON_AddNumberToObject(o, "node", (double)i);
    cJSON_AddNumberToObject(o, "parent", nd->parent);
    cJSON_AddNumberToObject(o, "depth", nd->depth);
    cJSON_AddStringToObject(o, "knobs", nd->label ? nd->label : "");
    cJSON_AddStringToObject(o, "code", nd->code.s ? nd->code.s : "");
    fb = cJSON_AddObjectToObject(o, "feedback");
    if (fb) {
        cJSON_AddStringToObject(fb, "verdict", st.verdict);
        cJSON_AddBoolToObject(fb, "correct", nd->correct);
        cJSON_AddBoolToObject(fb, "confirmed", nd->confirmed);
        cJSON_AddNumberToObject(fb, "speedup", nd->speedup);
        cJSON_AddStringToObject(fb, "detail", nd->detail ? nd->detail : "");
    }
    cJSON_AddStringToObject(o, "critique", nd->critique ? nd->critique : "");
    cJSON_AddNumberToObject(o, "fr", lab[i].fr);
    cJSON_AddNumberToObject(o, "ut", lab[i].ut);
    cJSON_AddNumberToObject(o, "vstar", lab[i].vstar);
    cJSON_AddStringToObject(o, "bins", t->bins);
    cJSON_AddStringToObject(o, "prompt", prompt.s);
    text = cJSON_PrintUnformatted(o);
    if (!text)
        goto out;
    mc_buf_adds(&x->out, text);
    rc = mc_buf_addc(&x->out, '\n');
    x->records += !rc;
out:
    cJSON_free(text);
    cJSON_Delete(o);
    mc_buf_release(&prompt);
    return rc;
}

static enum mc_code
export_visit(const struct mc_trajectory *t, const struct mc_rollout_node *lab,
             void *arg)
{
    enum mc_code rc = MC_OK;
    size_t i;

    for (i = 0; i < t->n && !rc; i++)
        rc = export_record(arg, t, lab, i);
    return rc;
}

/* A share in (0, 1] from TEXT into *OUT; -1 when it is not one. */
static int
parse_share(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);

    if (end == text || *end || !(v > 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

/* Parse -o FILE, --split SHARE; the first other argument's index into
 * *FIRST. */
static int
parse_args(int argc, char **argv, const char *cmd, const char **out,
           double *split, int *first)
{
    int i;

    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            *out = argv[++i];
        } else if (!strcmp(argv[i], "--split") && i + 1 < argc) {
            if (parse_share(argv[++i], split))
                return mc_usage_error("%s: --split takes a share in (0, "
                                      "1], not '%s'", cmd, argv[i]);
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            return mc_usage_error("%s: unknown option '%s'", cmd, argv[i]);
        } else {
            break;
        }
    }
    *first = i;
    return 0;
}

static int
rollouts_export(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct export x = {MC_BUF_INIT, 0.8, 0};
    struct mc_cache c;
    struct walk w;
    const char *out = NULL;
    int first = 0, status;
    enum mc_code rc;

    if ((status = parse_args(argc, argv, "rollouts export", &out, &x.split,
                             &first)) ||
        (status = mc_open_cache(&c, NULL)))
        return status;
    rc = walk(&c, argv + first, argc - first, export_visit, &x, &w);
    if (!rc && out)
        rc = mc_file_write_atomic(out, x.out.s ? x.out.s : "", x.out.len,
                                  &err);
    else if (!rc && x.out.len &&
             (fwrite(x.out.s, 1, x.out.len, stdout) != x.out.len ||
              fflush(stdout)))
        rc = mc_err_set(&err, MC_EIO, "cannot write the records: %s",
                        strerror(errno));
    if (rc && rc != MC_ENOENT)
        mc_error("rollouts export: %s",
                 err.code ? err.msg : mc_strerror(rc));
    else if (!rc)
        fprintf(stderr, "maxcode: %zu records from %zu searches (%zu "
                "entries without a trajectory)\n", x.records, w.searches,
                w.skipped);
    mc_buf_release(&x.out);
    mc_cache_release(&c);
    return rc ? 1 : 0;
}

/* ---- gvf train ---- */

struct rows {
    double *x;             /* n * MC_GVF_FEATURES */
    int *y;
    size_t n, cap;
    double split;
    int held;              /* 0: the training side, 1: validation */
};

static enum mc_code
rows_add(struct rows *r, const struct mc_gvf_state *st, int y)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        double *x = mc_realloc(r->x, cap * MC_GVF_FEATURES * sizeof(*x));
        int *yy;

        if (!x)
            return MC_ENOMEM;
        r->x = x;
        yy = mc_realloc(r->y, cap * sizeof(*yy));
        if (!yy)
            return MC_ENOMEM;
        r->y = yy;
        r->cap = cap;
    }
    if (mc_gvf_features(st, r->x + r->n * MC_GVF_FEATURES))
        return MC_ENOMEM;
    r->y[r->n++] = y;
    return MC_OK;
}

/* The nodes of T on R's side as rows; v* rounded to its bin. */
static enum mc_code
rows_visit(const struct mc_trajectory *t, const struct mc_rollout_node *lab,
           void *arg)
{
    struct rows *r = arg;
    enum mc_code rc = MC_OK;
    size_t i;

    if (mc_rollout_train_side(t->key, r->split) == r->held)
        return MC_OK;
    for (i = 0; i < t->n && !rc; i++) {
        struct mc_gvf_state st;
        int y = (int)floor(lab[i].vstar + 0.5);

        state_of(t, i, &st);
        rc = rows_add(r, &st, y < 0 ? 0 : y >= MC_GVF_BINS ? 4 : y);
    }
    return rc;
}

/* How M does on the held-out rows V: the share of rows whose most
 * likely bin is the label, and the mean absolute error of the value. */
static void
validate(const struct mc_gvf_model *m, const struct rows *v)
{
    size_t i, hit = 0;
    double err = 0;

    for (i = 0; i < v->n; i++) {
        const double *x = v->x + i * MC_GVF_FEATURES;
        double p[MC_GVF_BINS];
        int q, best = 0;

        mc_gvf_model_predict(m, x, p);
        for (q = 1; q < MC_GVF_BINS; q++)
            if (p[q] > p[best])
                best = q;
        hit += best == v->y[i];
        err += fabs(mc_gvf_model_value(m, x, 0) - v->y[i]);
    }
    if (v->n)
        printf("validation: %zu records, accuracy %.3f, mean absolute "
               "error %.3f bins\n", v->n, (double)hit / (double)v->n,
               err / (double)v->n);
}

static void
rows_release(struct rows *r)
{
    mc_free(r->x);
    mc_free(r->y);
}

static int
gvf_train(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct rows tr = {NULL, NULL, 0, 0, 1, 0}, va = {NULL, NULL, 0, 0, 1, 1};
    struct mc_gvf_model *m = mc_calloc(1, sizeof(*m));
    struct mc_buf path = MC_BUF_INIT;
    struct mc_cache c;
    struct walk w;
    const char *out = NULL;
    int first = 0, status;
    enum mc_code rc;

    if (!m)
        return 1;
    if ((status = parse_args(argc, argv, "gvf train", &out, &tr.split,
                             &first)) ||
        (status = mc_open_cache(&c, NULL))) {
        mc_free(m);
        return status;
    }
    if (first < argc) {
        mc_free(m);
        mc_cache_release(&c);
        return mc_usage_error("gvf train: unexpected argument '%s'",
                              argv[first]);
    }
    va.split = tr.split;
    rc = walk(&c, NULL, 0, rows_visit, &tr, &w);
    if (!rc && tr.split < 1)
        rc = walk(&c, NULL, 0, rows_visit, &va, &w);
    if (!rc && !tr.n)
        rc = mc_err_set(&err, MC_ENOENT, "no recorded search to learn from "
                        "in '%s' (searches store their trajectories as "
                        "they finish)", c.dir);
    if (!rc)
        rc = mc_gvf_model_fit(m, tr.x, tr.y, tr.n);
    if (!rc && !out && !(rc = mc_value_model_path(c.dir, &path)))
        out = path.s;
    if (!rc)
        rc = mc_gvf_model_save(m, out, &err);
    if (rc) {
        mc_error("gvf train: %s", err.code ? err.msg : mc_strerror(rc));
    } else {
        printf("fitted on %zu records of %zu searches; written to %s "
               "(model %d, %s)\n", tr.n, w.searches, out,
               MC_GVF_MODEL_VERSION, m->hash);
        validate(m, &va);
    }
    rows_release(&tr);
    rows_release(&va);
    mc_buf_release(&path);
    mc_cache_release(&c);
    mc_free(m);
    return rc ? 1 : 0;
}

/* ---- the commands ---- */

int
mc_cmd_rollouts(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "export"))
        return mc_usage_error("rollouts: expected 'export'");
    return rollouts_export(argc, argv);
}

int
mc_cmd_gvf(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "train"))
        return mc_usage_error("gvf: expected 'train'");
    return gvf_train(argc, argv);
}
