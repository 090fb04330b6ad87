/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: the max-reward loop, its strategies, the journal and the
 * final confirmation. See search.h.
 */
#include "mc_setup.h"
#include "search.h"
#include "alloc.h"
#include "cache.h"
#include "file.h"
#include "log.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
node_release(struct mc_search_node *nd)
{
    mc_free(nd->label);
    mc_free(nd->detail);
    mc_free(nd->critique);
    mc_buf_release(&nd->code);
}

enum mc_code
mc_search_init(struct mc_search *s, struct mc_target *t, struct mc_eval *ev,
               const char *key, const char *journal, const char *cache_dir,
               struct mc_err *err)
{
    const char *g = getenv("MAXCODE_GAMMA");
    enum mc_code rc;

    memset(s, 0, sizeof(*s));
    mc_buf_init(&s->reason);
    s->t = t;
    s->ev = ev;
    s->key = key;
    s->cache_dir = cache_dir;
    s->best = -1;
    s->strategy = mc_target_get(t, MC_OPT_STRATEGY);
    s->budget = (size_t)atol(mc_target_get(t, MC_OPT_BUDGET));
    s->gamma = g && atof(g) > 0 && atof(g) <= 1 ? atof(g) : 1.0;
    s->time_limit_s = atof(mc_conf_get(&t->conf, MC_SET_TIME_LIMIT));
    s->journal = mc_strdup(journal);
    if (!s->journal)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = mc_builtin_init(&s->builtin, t, err);
    return rc;
}

void
mc_search_release(struct mc_search *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        node_release(&s->nodes[i]);
    mc_free(s->nodes);
    mc_free(s->journal);
    mc_buf_release(&s->reason);
    memset(s, 0, sizeof(*s));
}

size_t
mc_search_correct(const struct mc_search *s)
{
    size_t i, n = 0;

    for (i = 0; i < s->n; i++)
        n += s->nodes[i].correct;
    return n;
}

static struct mc_search_node *
new_node(struct mc_search *s)
{
    struct mc_search_node *nd;

    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct mc_search_node *v = mc_realloc(s->nodes, cap * sizeof(*v));
        if (!v)
            return NULL;
        s->nodes = v;
        s->cap = cap;
    }
    nd = &s->nodes[s->n];
    memset(nd, 0, sizeof(*nd));
    mc_buf_init(&nd->code);
    nd->parent = -1;
    return nd;
}

/* The proposer's view of the nodes; the caller frees it. */
static struct mc_prop_node *
prop_view(const struct mc_search *s)
{
    struct mc_prop_node *v = mc_calloc(s->n + 1, sizeof(*v));
    size_t i;

    for (i = 0; v && i < s->n; i++) {
        v[i].parent = s->nodes[i].parent;
        v[i].tag = s->nodes[i].tag;
        v[i].evaluated = 1;
        v[i].correct = s->nodes[i].correct;
        v[i].compile_error = s->nodes[i].compile_error;
        v[i].speedup = s->nodes[i].speedup;
    }
    return v;
}

static void
update_best(struct mc_search *s, size_t i)
{
    const struct mc_search_node *nd = &s->nodes[i];

    if (nd->confirmed &&
        (s->best < 0 || nd->reward > s->nodes[s->best].reward))
        s->best = (int)i;
}

/* ---- journal ---- */

static void
journal_line(struct mc_search *s, cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    int fd;

    if (!text)
        return;
    fd = open(s->journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd >= 0) {
        size_t n = strlen(text);
        text[n] = '\n';
        /* One write of the whole line: O_APPEND keeps it in one piece. */
        if (write(fd, text, n + 1) != (ssize_t)(n + 1))
            mc_info("cannot write the journal '%s'", s->journal);
        text[n] = '\0';
        close(fd);
    }
    cJSON_free(text);
}

static void
journal_node(struct mc_search *s, const struct mc_search_node *nd)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return;
    cJSON_AddNumberToObject(o, "parent", nd->parent);
    cJSON_AddNumberToObject(o, "depth", nd->depth);
    cJSON_AddNumberToObject(o, "tag", (double)nd->tag);
    cJSON_AddStringToObject(o, "label", nd->label ? nd->label : "");
    cJSON_AddStringToObject(o, "verdict", mc_verdict_name(nd->verdict));
    cJSON_AddBoolToObject(o, "correct", nd->correct);
    cJSON_AddBoolToObject(o, "compile_error", nd->compile_error);
    cJSON_AddBoolToObject(o, "confirmed", nd->confirmed);
    cJSON_AddNumberToObject(o, "speedup", nd->speedup);
    cJSON_AddNumberToObject(o, "reward", nd->reward);
    cJSON_AddNumberToObject(o, "u", nd->u);
    cJSON_AddStringToObject(o, "detail", nd->detail ? nd->detail : "");
    cJSON_AddStringToObject(o, "critique", nd->critique ? nd->critique : "");
    cJSON_AddStringToObject(o, "code", nd->code.s);
    journal_line(s, o);
    cJSON_Delete(o);
}

static const char *
jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double
jnum(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int
jbool(const cJSON *o, const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, name));
}

/* Read the journal back; start a new one when there is none (or it is
 * another search's). */
static enum mc_code
journal_resume(struct mc_search *s, struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    enum mc_code rc = mc_file_read(s->journal, &text, NULL);
    const char *p = text.s;
    int header_ok = 0;

    if (rc == MC_OK) {
        while (*p) {
            size_t n = strcspn(p, "\n");
            cJSON *o = p[n] == '\n' ? cJSON_ParseWithLength(p, n) : NULL;

            p += n + (p[n] == '\n');
            if (!o)
                break; /* a torn last line */
            if (!header_ok) {
                header_ok = !strcmp(jstr(o, "key"), s->key) &&
                            !strcmp(jstr(o, "strategy"), s->strategy) &&
                            (size_t)jnum(o, "budget") == s->budget;
            } else if (s->n < s->budget) {
                struct mc_search_node *nd = new_node(s);
                struct mc_prop_node *view;
                const char *v = jstr(o, "verdict");
                int k;

                if (!nd) {
                    cJSON_Delete(o);
                    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
                    break;
                }
                nd->parent = (int)jnum(o, "parent");
                nd->depth = (int)jnum(o, "depth");
                nd->tag = (unsigned long)jnum(o, "tag");
                nd->label = mc_strdup(jstr(o, "label"));
                nd->verdict = MC_VERDICT_REJECTED;
                for (k = 0; k <= MC_VERDICT_REJECTED; k++)
                    if (!strcmp(v, mc_verdict_name((enum mc_verdict)k)))
                        nd->verdict = (enum mc_verdict)k;
                nd->correct = jbool(o, "correct");
                nd->compile_error = jbool(o, "compile_error");
                nd->confirmed = jbool(o, "confirmed");
                nd->speedup = jnum(o, "speedup");
                nd->reward = jnum(o, "reward");
                nd->u = jnum(o, "u");
                nd->detail = mc_strdup(jstr(o, "detail"));
                nd->critique = mc_strdup(jstr(o, "critique"));
                mc_buf_adds(&nd->code, jstr(o, "code"));
                if (nd->parent >= (int)s->n)
                    nd->parent = -1;
                s->n++;
                /* Replay what the proposer learnt (bans, blame). */
                view = prop_view(s);
                if (view) {
                    struct mc_buf scratch = MC_BUF_INIT;
                    mc_builtin_learn(&s->builtin, view, s->n - 1,
                                     nd->detail ? nd->detail : "", &scratch);
                    mc_buf_release(&scratch);
                    mc_free(view);
                }
                update_best(s, s->n - 1);
            }
            cJSON_Delete(o);
        }
    }
    mc_buf_release(&text);
    if (rc && rc != MC_ENOENT)
        return rc;
    if (!header_ok) {
        cJSON *h = cJSON_CreateObject();

        unlink(s->journal);
        for (; s->n > 0; s->n--)
            node_release(&s->nodes[s->n - 1]);
        s->best = -1;
        mc_builtin_init(&s->builtin, s->t, NULL);
        if (!h)
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        cJSON_AddNumberToObject(h, "maxcode_journal", 1);
        cJSON_AddStringToObject(h, "key", s->key);
        cJSON_AddStringToObject(h, "strategy", s->strategy);
        cJSON_AddNumberToObject(h, "budget", (double)s->budget);
        journal_line(s, h);
        cJSON_Delete(h);
    }
    s->resumed = s->n;
    if (s->resumed)
        mc_info("%s: resumed from the journal: %zu of %zu candidates "
                "already evaluated", s->t->source, s->resumed, s->budget);
    return MC_OK;
}

/* ---- one candidate ---- */

static double
best_reward(const struct mc_search *s)
{
    return s->best >= 0 ? s->nodes[s->best].reward : 1.0;
}

/* Render, judge, learn, journal and report the candidate with knobs TAG
 * from PARENT. */
static enum mc_code
evaluate(struct mc_search *s, int parent, unsigned long tag,
         struct mc_err *err)
{
    struct mc_search_node *nd = new_node(s);
    struct mc_feedback fb;
    struct mc_buf label = MC_BUF_INIT, crit = MC_BUF_INIT;
    struct mc_prop_node *view;
    const struct mc_buf *orig = &s->ev->orig_text;
    enum mc_code rc;
    double g;

    if (!nd)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    nd->parent = parent;
    nd->depth = parent >= 0 ? s->nodes[parent].depth + 1 : 1;
    nd->tag = tag;
    mc_builtin_label(&s->builtin, tag, &label);
    nd->label = mc_buf_detach(&label, NULL);
    rc = mc_builtin_render(&s->builtin, tag, orig->s, orig->len, &nd->code);
    if (rc)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    s->n++;
    mc_feedback_init(&fb);
    rc = mc_eval_candidate(s->ev, nd->code.s, nd->code.len,
                           !strcmp(mc_target_get(s->t, MC_OPT_SANITIZE), "1"),
                           1, &fb, err);
    if (rc) {
        mc_feedback_release(&fb);
        return rc;
    }
    s->evaluated++;
    if (s->cache_dir) {
        /* Counted now, not at the end: a killed search's work shows. */
        struct mc_cache c;
        struct mc_stats d;

        memset(&d, 0, sizeof(d));
        d.n[MC_STAT_CANDIDATES] = 1;
        if (mc_cache_init(&c, s->cache_dir, NULL) == MC_OK) {
            mc_cache_stats_add(&c, &d, NULL);
            mc_cache_release(&c);
        }
    }
    nd->verdict = fb.verdict;
    nd->correct = fb.correct;
    nd->compile_error = fb.verdict == MC_VERDICT_COMPILE_ERROR;
    nd->confirmed = fb.timing.confirmed;
    nd->speedup = !fb.correct       ? 0
                  : nd->confirmed ? fb.timing.confirmed_speedup
                                  : fb.timing.median;
    nd->reward = nd->speedup;
    g = pow(s->gamma, nd->depth);
    nd->u = fmax(parent >= 0 ? s->nodes[parent].u : 0, g * nd->reward);
    nd->detail = mc_strdup(fb.detail.s);
    view = prop_view(s);
    if (view) {
        mc_builtin_learn(&s->builtin, view, s->n - 1, fb.detail.s, &crit);
        mc_free(view);
    }
    nd->critique = mc_buf_detach(&crit, NULL);
    update_best(s, s->n - 1);
    journal_node(s, nd);
    if (nd->correct)
        mc_info("%s [%zu/%zu] correct %.2fx (best %.2fx): %s", s->t->source,
                s->n, s->budget, nd->speedup, best_reward(s),
                nd->critique ? nd->critique : "");
    else
        mc_info("%s [%zu/%zu] %s (best %.2fx): %s", s->t->source, s->n,
                s->budget, mc_verdict_name(nd->verdict), best_reward(s),
                nd->critique ? nd->critique : "");
    mc_feedback_release(&fb);
    return MC_OK;
}

/* Propose up to K knob sets from PARENT (falling back to the original
 * when PARENT's neighbourhood is exhausted). */
static size_t
choose(struct mc_search *s, int parent, size_t k, int repair,
       unsigned long *tags, int *parents)
{
    struct mc_prop_node *view = prop_view(s);
    size_t n = 0, i;

    if (!view)
        return 0;
    mc_builtin_choose(&s->builtin, view, s->n, parent, k, repair, tags, &n);
    for (i = 0; i < n; i++)
        parents[i] = parent;
    if (n < k && parent >= 0) {
        size_t more = 0;
        mc_builtin_choose(&s->builtin, view, s->n, -1, k - n, 0, tags + n,
                          &more);
        /* Drop duplicates of what PARENT's round already holds. */
        for (i = 0; i < more && n < k; i++) {
            size_t j;
            int dup = 0;
            for (j = 0; j < n; j++)
                dup |= tags[j] == tags[n + i];
            if (!dup) {
                tags[n] = tags[n + i];
                parents[n++] = -1;
            }
        }
    }
    mc_free(view);
    return n;
}

/* The node to expand: the best correct by reward, else -1. */
static int
best_correct(const struct mc_search *s)
{
    int best = -1;
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->nodes[i].correct &&
            (best < 0 || s->nodes[i].reward > s->nodes[best].reward))
            best = (int)i;
    return best;
}

static int
out_of_time(const struct mc_search *s, double start)
{
    return s->time_limit_s > 0 && now_s() - start >= s->time_limit_s;
}

enum mc_code
mc_search_run(struct mc_search *s, struct mc_err *err)
{
    double start = now_s(), min_speedup;
    unsigned long tags[64];
    int parents[64];
    enum mc_code rc;
    int stopped = 0;

    rc = journal_resume(s, err);
    if (rc)
        return rc;
    while (s->n < s->budget && !stopped) {
        size_t left = s->budget - s->n, k, i, got;
        int parent = -1, repair = 0;

        if (out_of_time(s, start)) {
            mc_info("%s: MAXCODE_TIME_LIMIT (%.0f s) reached after %zu "
                    "candidates", s->t->source, s->time_limit_s, s->n);
            break;
        }
        if (!strcmp(s->strategy, "flat")) {
            k = 1;
        } else if (!strcmp(s->strategy, "effi-learner")) {
            /* Odd positions refine the previous node; even ones start a
             * new path from the original. */
            k = 1;
            if (s->n % 2 == 1) {
                parent = (int)s->n - 1;
                repair = !s->nodes[parent].correct;
            }
        } else {
            /* cuda-llm (and gvf without its model): rounds of K. */
            size_t kk = s->budget < 4 ? s->budget : 4;
            size_t round_start = s->n - s->n % kk, j;
            int any_correct = 0;

            k = kk - (s->n - round_start);
            if (k > left)
                k = left;
            parent = best_correct(s);
            for (j = round_start >= kk ? round_start - kk : 0;
                 j < round_start; j++)
                any_correct |= s->nodes[j].correct;
            if (round_start >= kk && !any_correct) {
                /* Repair the previous round's candidates, one each. */
                got = 0;
                for (j = round_start - kk; j < round_start && got < k; j++) {
                    size_t one = choose(s, (int)j, 1, 1, tags + got,
                                        parents + got);
                    got += one;
                }
                goto evaluate_round;
            }
        }
        if (k > MC_ARRAY_SIZE(tags))
            k = MC_ARRAY_SIZE(tags);
        got = choose(s, parent, k, repair, tags, parents);
    evaluate_round:
        if (!got) {
            mc_info("%s: the built-in proposer has nothing new to try after "
                    "%zu candidates", s->t->source, s->n);
            break;
        }
        for (i = 0; i < got && s->n < s->budget; i++) {
            if (out_of_time(s, start)) {
                stopped = 1;
                break;
            }
            rc = evaluate(s, parents[i], tags[i], err);
            if (rc)
                return rc;
        }
    }
    /* The answer: the best confirmed node, confirmed once more. */
    min_speedup = atof(mc_target_get(s->t, MC_OPT_MIN_SPEEDUP));
    if (s->best < 0) {
        int bc = best_correct(s);
        if (bc >= 0)
            mc_buf_addf(&s->reason, "no variant beat min-speedup %.2f beyond "
                        "the noise: the best was %.2fx (%s); %zu candidates, "
                        "%zu correct", min_speedup, s->nodes[bc].speedup,
                        s->nodes[bc].label, s->n, mc_search_correct(s));
        else
            mc_buf_addf(&s->reason, "no correct variant among %zu "
                        "candidates (best speedup 0x)", s->n);
        return MC_OK;
    }
    {
        struct mc_search_node *b = &s->nodes[s->best];
        struct mc_feedback fb;

        mc_feedback_init(&fb);
        rc = mc_eval_candidate(s->ev, b->code.s, b->code.len, 0, 1, &fb, err);
        if (rc) {
            mc_feedback_release(&fb);
            return rc;
        }
        if (fb.correct && fb.timing.confirmed &&
            fb.timing.confirmed_speedup >= min_speedup) {
            s->final_speedup = fb.timing.confirmed_speedup;
        } else {
            mc_buf_addf(&s->reason, "the best variant (%s, %.2fx) did not "
                        "hold in the final confirmation (%s, %.2fx)",
                        b->label, b->speedup, mc_verdict_name(fb.verdict),
                        fb.timing.median);
        }
        mc_feedback_release(&fb);
    }
    return MC_OK;
}
