/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.c: the report's model (targets read from cache entries) and
 * its page: the head with the style, the build summary, the summary
 * table and its sorting script. Each target's section is in
 * report_target.c, its plot in report_plot.c.
 */
#include "mc_setup.h"
#include "report.h"
#include "alloc.h"
#include "html.h"
#include "manifest.h"

#include <cjson/cJSON.h>

/* ---- the model ---- */

void
mc_report_init(struct mc_report *r, const char *cache_dir)
{
    time_t now = time(NULL);
    struct tm tm;

    memset(r, 0, sizeof(*r));
    r->cache_dir = cache_dir;
    gmtime_r(&now, &tm);
    strftime(r->generated, sizeof(r->generated), "%Y-%m-%d %H:%M UTC",
             &tm);
}

static void
target_release(struct mc_report_target *t)
{
    mc_free(t->source);
    mc_free(t->status);
    mc_free(t->reason);
    mc_free(t->strategy);
    mc_free(t->proposer);
    mc_free(t->model);
    mc_free(t->metric);
    mc_free(t->created);
    mc_free(t->best_label);
    mc_free(t->ranking);
    mc_free(t->bound_why);
    mc_free(t->source_path);
    mc_free(t->dir);
    mc_strv_release(&t->words);
    mc_trajectory_release(&t->traj);
}

void
mc_report_release(struct mc_report *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        target_release(&r->v[i]);
    mc_free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

enum mc_code
mc_report_build_words(const cJSON *m, struct mc_strv *out)
{
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(m, "flags");
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(m, "options");
    struct mc_buf b = MC_BUF_INIT;
    const cJSON *f;

    if (mc_shell_split(mc_manifest_str(m, "compiler"), out, NULL))
        mc_strv_push(out, mc_manifest_str(m, "compiler"));
    if (cJSON_IsArray(flags))
        cJSON_ArrayForEach(f, flags)
        {
            if (cJSON_IsString(f))
                mc_strv_push(out, f->valuestring);
        }
    if (cJSON_IsObject(opts))
        cJSON_ArrayForEach(f, opts)
        {
            if (!cJSON_IsString(f) || !f->string)
                continue;
            mc_buf_reset(&b);
            mc_buf_addf(&b, "%s=%s", f->string, f->valuestring);
            if (!mc_buf_status(&b))
                mc_strv_push(out, b.s);
        }
    mc_buf_release(&b);
    return mc_strv_status(out);
}

/* Whether every one of the N word lists WORDS has W. */
static int
all_have(const struct mc_strv *const *words, size_t n, const char *w)
{
    size_t j;

    for (j = 0; j < n; j++)
        if (!mc_strv_contains(words[j], w))
            return 0;
    return 1;
}

/* Append W to OUT, after a space unless OUT is empty or ends in one,
 * once: when it is not already among SEEN (and add it there). */
static void
add_word_once(struct mc_buf *out, struct mc_strv *seen, const char *w)
{
    if (mc_strv_contains(seen, w))
        return;
    mc_strv_push(seen, w);
    if (out->len && out->s[out->len - 1] != ' ')
        mc_buf_addc(out, ' ');
    mc_buf_adds(out, w);
}

enum mc_code
mc_report_words_differ(const struct mc_strv *const *words, size_t n,
                       size_t i, struct mc_buf *out)
{
    struct mc_strv seen = MC_STRV_INIT;
    enum mc_code rc;
    size_t j, k, start;

    mc_buf_reset(out);
    if (n < 2 || i >= n)
        return MC_OK;
    for (k = 0; k < words[i]->n; k++)
        if (!all_have(words, n, words[i]->v[k]))
            add_word_once(out, &seen, words[i]->v[k]);
    start = out->len;
    for (j = 0; j < n; j++)
        for (k = 0; j != i && k < words[j]->n; k++) {
            const char *w = words[j]->v[k];

            if (mc_strv_contains(words[i], w) || mc_strv_contains(&seen, w))
                continue;
            if (out->len == start)
                mc_buf_adds(out, start ? "; without " : "without ");
            add_word_once(out, &seen, w);
        }
    rc = mc_buf_status(out) ? MC_ENOMEM : mc_strv_status(&seen);
    mc_strv_release(&seen);
    return rc;
}

/* The figures of manifest M into T. MC_ENOMEM. */
static enum mc_code
read_manifest(const cJSON *m, struct mc_report_target *t)
{
    struct mc_buf dir = MC_BUF_INIT;
    const char *why;

    if (mc_manifest_dir(m, &dir) ||
        !(t->dir = mc_strdup(dir.s ? dir.s : "")) ||
        mc_report_build_words(m, &t->words)) {
        mc_buf_release(&dir);
        return MC_ENOMEM;
    }
    mc_buf_release(&dir);
    t->source_path = mc_strdup(mc_manifest_str(m, "source_path"));
    t->source = mc_strdup(mc_manifest_str(m, "source"));
    t->status = mc_strdup(mc_manifest_str(m, "status"));
    t->reason = mc_strdup(mc_manifest_str(m, "reason"));
    t->strategy = mc_strdup(mc_manifest_str(m, "strategy"));
    t->proposer = mc_strdup(mc_manifest_str(m, "proposer"));
    t->model = mc_strdup(mc_manifest_str(m, "model"));
    t->metric = mc_strdup(mc_manifest_str(m, "metric"));
    t->created = mc_strdup(mc_manifest_str(m, "created"));
    t->best_label = mc_strdup(mc_manifest_str(m, "best"));
    t->ranking = mc_strdup(mc_manifest_str(m, "ranking"));
    t->speedup = mc_manifest_num(m, "speedup", 1);
    t->baseline = mc_manifest_num(m, "baseline_seconds", -1);
    t->seconds = mc_manifest_num(m, "search_seconds", -1);
    t->candidates = (size_t)mc_manifest_num(m, "candidates", 0);
    t->correct = (size_t)mc_manifest_num(m, "correct_candidates", 0);
    t->usage.requests =
        (unsigned long long)mc_manifest_num(m, "llm_requests", 0);
    t->usage.tokens_in =
        (unsigned long long)mc_manifest_num(m, "tokens_in", 0);
    t->usage.tokens_out =
        (unsigned long long)mc_manifest_num(m, "tokens_out", 0);
    t->usage.cost = mc_manifest_num(m, "cost", 0);
    mc_manifest_interval(m, &t->low, &t->high);
    if (mc_manifest_bound(m, &why) && !(t->bound_why = mc_strdup(why)))
        return MC_ENOMEM;
    if (!t->source_path || !t->source || !t->status || !t->reason ||
        !t->strategy ||
        !t->proposer || !t->model || !t->metric || !t->created ||
        !t->best_label || !t->ranking)
        return MC_ENOMEM;
    return MC_OK;
}

/*
 * The node of T that the entry kept: for an optimized entry, the
 * correct, confirmed node named by the manifest's "best" with the
 * highest reward (labels of a search are unique but for repeats of one
 * knob set), else the confirmed correct node with the highest reward;
 * -1 for an entry that kept the original.
 */
static int
find_best(const struct mc_report_target *t)
{
    int best = -1, named = -1;
    size_t i;

    if (strcmp(t->status, "optimized"))
        return -1;
    for (i = 0; i < t->traj.n; i++) {
        const struct mc_search_node *nd = &t->traj.nodes[i];

        if (!nd->correct || !nd->confirmed)
            continue;
        if (best < 0 || nd->reward > t->traj.nodes[best].reward)
            best = (int)i;
        if (nd->label && !strcmp(nd->label, t->best_label) &&
            (named < 0 || nd->reward > t->traj.nodes[named].reward))
            named = (int)i;
    }
    return named >= 0 ? named : best;
}

/* The trajectory of E into T, when it has one that parses. */
static enum mc_code
read_trajectory(const struct mc_entry *e, struct mc_report_target *t,
                struct mc_err *err)
{
    struct mc_err perr = MC_ERR_INIT;
    enum mc_code rc;

    if (!e->trajectory.len)
        return MC_OK;
    rc = mc_trajectory_parse(e->trajectory.s, e->trajectory.len, &t->traj,
                             &perr);
    if (rc == MC_ENOMEM)
        return rc;
    if (rc) {
        /* Shown without its plot, not dropped. */
        mc_trajectory_release(&t->traj);
        if (err)
            snprintf(err->msg, sizeof(err->msg), "entry %s: %s", e->key,
                     perr.msg);
        return MC_OK;
    }
    t->has_traj = 1;
    return MC_OK;
}

enum mc_code
mc_report_add(struct mc_report *r, const struct mc_entry *e,
              struct mc_err *err)
{
    struct mc_report_target *t;
    cJSON *m = cJSON_ParseWithLength(e->manifest.s, e->manifest.len);
    enum mc_code rc;

    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        return mc_err_set(err, MC_ESYNTAX, "entry %s has no readable "
                          "manifest", e->key);
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        void *v = mc_realloc(r->v, cap * sizeof(*r->v));

        if (!v) {
            cJSON_Delete(m);
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        }
        r->v = v;
        r->cap = cap;
    }
    t = &r->v[r->n++];
    memset(t, 0, sizeof(*t));
    mc_strv_init(&t->words);
    mc_trajectory_init(&t->traj);
    memcpy(t->key, e->key, sizeof(t->key));
    rc = read_manifest(m, t);
    cJSON_Delete(m);
    if (!rc)
        rc = read_trajectory(e, t, err);
    if (rc)
        return mc_err_set(err, rc, "out of memory");
    t->best = find_best(t);
    return MC_OK;
}

static int
by_source(const void *a, const void *b)
{
    const struct mc_report_target *x = a, *y = b;
    int c = strcmp(x->source, y->source);

    return c ? c : -strcmp(x->created, y->created);
}

void
mc_report_sort(struct mc_report *r)
{
    if (r->n > 1)
        qsort(r->v, r->n, sizeof(*r->v), by_source);
}

/* ---- the page ---- */

static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "color:#1d2330;max-width:1120px;margin:20px auto;padding:0 18px}\n"
    "h1{font-size:22px;margin:0}h2{font-size:18px;margin:26px 0 6px}"
    "h3{font-size:15px;margin:14px 0 4px}h4{font-size:13px;margin:10px 0 "
    "2px;color:#445}\n"
    ".meta{color:#667;margin:2px 0 14px}.note{color:#667}\n"
    "table{border-collapse:collapse;margin:6px 0 14px}\n"
    "th,td{padding:4px 9px;border-bottom:1px solid #e2e5eb;text-align:left;"
    "vertical-align:top}\nth{background:#f2f4f7;font-weight:600}\n"
    "table.sum th{cursor:pointer;user-select:none;white-space:nowrap}\n"
    "table.sum th[aria-sort=descending]::after{content:' \\25BE'}\n"
    "table.sum th[aria-sort=ascending]::after{content:' \\25B4'}\n"
    ".num{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    ".ok{color:#17803d;font-weight:600}.orig{color:#8a5a00;"
    "font-weight:600}\n.bad{color:#b4232c}\n"
    ".reason{color:#556;font-size:12px;max-width:420px}\n"
    ".where{color:#556;font-size:12px}\n"
    "code,pre,.key{font:12px/1.4 ui-monospace,'DejaVu Sans Mono',"
    "monospace}\n"
    "pre{background:#f6f8fa;border:1px solid #e2e5eb;padding:6px 8px;"
    "overflow:auto;max-height:420px;margin:2px 0}\n"
    "pre.wrap{white-space:pre-wrap}\n"
    ".diff .a{color:#116329;background:#e6ffec}"
    ".diff .d{color:#82071e;background:#ffebe9}"
    ".diff .h{color:#0550ae}.diff .f{font-weight:600}\n"
    "section.target{border-top:2px solid #d0d7de;margin-top:30px}\n"
    "dl.facts{display:flex;flex-wrap:wrap;gap:2px 6px;margin:6px 0}"
    "dl.facts dt{color:#556}dl.facts dd{margin:0 16px 0 0}\n"
    "details.cand{border:1px solid #e2e5eb;border-radius:4px;margin:3px 0;"
    "padding:2px 8px}\ndetails.cand>summary{cursor:pointer}\n"
    "details.kept{border-color:#e08a00;background:#fffaf0}\n"
    "table.kv th{background:none;color:#556;font-weight:normal;"
    "padding:1px 9px 1px 0}table.kv td{padding:1px 9px 1px 0}\n"
    "table.kv th,table.kv td{border:0}\n"
    "figure{margin:6px 0}figcaption{color:#556;font-size:12px}\n"
    "svg.plot{max-width:100%;height:auto;background:#fff}\n"
    "svg .axis{stroke:#8a93a3;stroke-width:1}svg .grid{stroke:#eceef2}\n"
    "svg text{font:11px sans-serif;fill:#556}\n"
    "svg .base{stroke:#8a93a3;stroke-dasharray:4 3}\n"
    "svg .u{fill:none;stroke:#e08a00;stroke-width:2}\n"
    "svg .pt circle{fill:#2f6fdf}svg .pt-nc circle{fill:#fff;"
    "stroke:#2f6fdf;stroke-width:1.5}\n"
    "svg .pt-bad path{stroke:#d1242f;stroke-width:2}\n"
    "svg .pt-best circle.ring{fill:none;stroke:#e08a00;stroke-width:2.5}\n"
    ".lg-ok{color:#2f6fdf}.lg-bad{color:#d1242f}.lg-u,.lg-best{color:"
    "#e08a00}\n";

/* Sorts the summary table by the clicked column, numbers by their
 * data-v; the first click on a column sorts it largest first. */
static const char script[] =
    "(function(){var t=document.getElementById('summary');if(!t)return;\n"
    "var hs=t.tHead.rows[0].cells;\n"
    "function key(c){var v=c.getAttribute('data-v');"
    "return v===null?c.textContent:parseFloat(v);}\n"
    "function sort(i){var b=t.tBodies[0],rs=[].slice.call(b.rows),"
    "h=hs[i],d=h.getAttribute('aria-sort')==='descending'?1:-1;\n"
    "rs.sort(function(x,y){var p=key(x.cells[i]),q=key(y.cells[i]);"
    "return (p<q?-1:p>q?1:0)*d;});\n"
    "for(var k=0;k<hs.length;k++)hs[k].removeAttribute('aria-sort');\n"
    "h.setAttribute('aria-sort',d<0?'descending':'ascending');\n"
    "rs.forEach(function(r){b.appendChild(r);});}\n"
    "for(var i=0;i<hs.length;i++)(function(i){hs[i].tabIndex=0;"
    "hs[i].title='sort by this column';"
    "hs[i].onclick=function(){sort(i);};"
    "hs[i].onkeydown=function(e){if(e.key==='Enter')sort(i);};})(i);\n"
    "})();\n";

static void
page_head(const struct mc_report *r, struct mc_buf *b)
{
    mc_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                   "<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width\">"
                   "\n<title>maxcode report</title>\n<style>\n");
    mc_buf_adds(b, style);
    mc_buf_adds(b, "</style>\n</head>\n<body>\n<h1>maxcode report</h1>\n"
                   "<p class=\"meta\">");
    mc_buf_addf(b, "%zu target%s from the cache <code>", r->n,
                r->n == 1 ? "" : "s");
    mc_html_escs(b, r->cache_dir);
    mc_buf_addf(b, "</code>; generated %s by maxcode %s</p>\n",
                r->generated, PACKAGE_VERSION);
}

void
mc_report_duration(double s, char *out, size_t cap)
{
    if (s < 60)
        snprintf(out, cap, "%.1f s", s);
    else if (s < 3600)
        snprintf(out, cap, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(out, cap, "%lld h %02lld min", (long long)(s / 3600),
                 (long long)(s / 60) % 60);
}

/* A duration of S seconds (< 0: unknown) in a table cell. */
static void
add_duration(struct mc_buf *b, double s)
{
    char text[48];

    if (s < 0) {
        mc_buf_adds(b, "&mdash;");
        return;
    }
    mc_report_duration(s, text, sizeof(text));
    mc_buf_adds(b, text);
}

/* What R's targets add up to. */
struct totals {
    size_t optimized, candidates, correct, timed;
    double seconds;
    struct mc_llm_usage usage;
};

static void
add_up(const struct mc_report *r, struct totals *s)
{
    size_t i;

    memset(s, 0, sizeof(*s));
    for (i = 0; i < r->n; i++) {
        const struct mc_report_target *t = &r->v[i];

        s->optimized += !strcmp(t->status, "optimized");
        s->candidates += t->candidates;
        s->correct += t->correct;
        if (t->seconds >= 0) {
            s->timed++;
            s->seconds += t->seconds;
        }
        s->usage.requests += t->usage.requests;
        s->usage.tokens_in += t->usage.tokens_in;
        s->usage.tokens_out += t->usage.tokens_out;
        s->usage.cost += t->usage.cost;
    }
}

/* A column of the build summary: these targets' figure and the cache
 * counter's (< 0: none), with DECIMALS digits. */
struct column {
    const char *name;
    double mine, all;
    int decimals;
};

/* One row of the build summary: NAME, then each column's MINE (ALL
 * when ALL_ROW) of the N columns C. */
static void
total_row(struct mc_buf *b, const char *name, const struct column *c,
          size_t n, int all_row)
{
    size_t i;

    mc_buf_addf(b, "<tr><th>%s</th>", name);
    for (i = 0; i < n; i++) {
        double v = all_row ? c[i].all : c[i].mine;

        if (v >= 0)
            mc_buf_addf(b, "<td class=\"num\">%.*f</td>", c[i].decimals, v);
        else
            mc_buf_adds(b, "<td class=\"num\">&mdash;</td>");
    }
    mc_buf_adds(b, "</tr>\n");
}

/* The counter S of R's cache, or -1 when they were not read. */
static double
counter(const struct mc_report *r, enum mc_stat s)
{
    return r->have_stats ? (double)r->stats.n[s] : -1;
}

/* Every counter of the cache, as `maxcode stats` lists them. */
static void
all_counters(const struct mc_report *r, struct mc_buf *b)
{
    size_t k;

    if (!r->have_stats)
        return;
    mc_buf_adds(b, "<details><summary>All the cache's counters "
                   "(<code>maxcode stats</code>)</summary>\n"
                   "<table class=\"kv\">\n");
    for (k = 0; k < MC_STAT__COUNT; k++)
        mc_buf_addf(b, "<tr><th>%s</th><td class=\"num\">%llu</td></tr>\n",
                    mc_stat_name((enum mc_stat)k), r->stats.n[k]);
    mc_buf_addf(b, "<tr><th>cost</th><td class=\"num\">%.4f</td></tr>\n"
                   "</table>\n</details>\n", r->stats.cost);
}

/* These targets' figures (S) beside the cache's counters, one column
 * each. */
static void
totals_table(const struct mc_report *r, const struct totals *s,
             struct mc_buf *b)
{
    const struct column c[] = {
        {"searches", (double)r->n, counter(r, MC_STAT_SEARCHES), 0},
        {"candidates", (double)s->candidates,
         counter(r, MC_STAT_CANDIDATES), 0},
        {"correct", (double)s->correct, -1, 0},
        {"model requests", (double)s->usage.requests,
         counter(r, MC_STAT_LLM_REQUESTS), 0},
        {"tokens in", (double)s->usage.tokens_in,
         counter(r, MC_STAT_TOKENS_IN), 0},
        {"tokens out", (double)s->usage.tokens_out,
         counter(r, MC_STAT_TOKENS_OUT), 0},
        {"cost", s->usage.cost, r->have_stats ? r->stats.cost : -1, 4},
    };
    size_t i;

    mc_buf_adds(b, "<table class=\"totals\">\n<thead><tr><th></th>");
    for (i = 0; i < MC_ARRAY_SIZE(c); i++)
        mc_buf_addf(b, "<th class=\"num\">%s</th>", c[i].name);
    mc_buf_adds(b, "</tr></thead>\n<tbody>\n");
    total_row(b, "these targets", c, MC_ARRAY_SIZE(c), 0);
    total_row(b, "cache counters", c, MC_ARRAY_SIZE(c), 1);
    mc_buf_adds(b, "</tbody>\n</table>\n");
}

static void
build_summary(const struct mc_report *r, struct mc_buf *b)
{
    struct totals s;

    add_up(r, &s);
    mc_buf_adds(b, "<h2 id=\"build\">Build summary</h2>\n<p>");
    mc_buf_addf(b, "%zu optimized, %zu kept the original.", s.optimized,
                r->n - s.optimized);
    mc_buf_adds(b, " Search time: ");
    add_duration(b, s.timed ? s.seconds : -1);
    if (s.timed && s.timed < r->n)
        mc_buf_addf(b, " (of the %zu targets that recorded it)", s.timed);
    else if (!s.timed)
        mc_buf_adds(b, " (not recorded in these manifests)");
    mc_buf_adds(b, ".</p>\n");
    totals_table(r, &s, b);
    all_counters(r, b);
}

/* The speedup cell of T: the confirmed figure (marked when it is its
 * interval's lower bound) and its interval. */
static void
speedup_cell(struct mc_buf *b, const struct mc_report_target *t)
{
    mc_buf_addf(b, "<td class=\"num\" data-v=\"%.6g\">%.2fx%s",
                t->speedup, t->speedup, t->bound_why ? " (lower bound)" : "");
    if (t->low > 0)
        mc_buf_addf(b, " <span class=\"note\">[%.2f&ndash;%.2f]</span>",
                    t->low, t->high);
    mc_buf_adds(b, "</td>");
}

/* Whether targets T and U are entries of one source: the same
 * source_path, or the same source where either has none. */
static int
same_source(const struct mc_report_target *t,
            const struct mc_report_target *u)
{
    if (t->source_path[0] && u->source_path[0])
        return !strcmp(t->source_path, u->source_path);
    return !strcmp(t->source, u->source);
}

/* What tells target I of R apart from the other entries of its source
 * (mc_report_words_differ), into OUT, and how many entries its source
 * has (itself included) into *N. */
static void
differs_from_others(const struct mc_report *r, size_t i,
                    struct mc_buf *out, size_t *n)
{
    const struct mc_strv **words = mc_malloc(r->n * sizeof(*words));
    size_t j, me = 0;

    *n = 0;
    mc_buf_reset(out);
    if (!words)
        return;
    for (j = 0; j < r->n; j++)
        if (same_source(&r->v[i], &r->v[j])) {
            if (j == i)
                me = *n;
            words[(*n)++] = &r->v[j].words;
        }
    mc_report_words_differ(words, *n, me, out);
    mc_free(words);
}

/* The source cell of target I of R: the source, linked to its section,
 * the directory its search ran in and, when its source has other
 * entries, what tells this one apart. */
static void
source_cell(struct mc_buf *b, const struct mc_report *r, size_t i)
{
    const struct mc_report_target *t = &r->v[i];
    struct mc_buf d = MC_BUF_INIT;
    size_t n;

    mc_buf_addf(b, "<td><a href=\"#t-%s\">", t->key);
    mc_html_escs(b, t->source);
    mc_buf_adds(b, "</a>");
    if (t->dir[0]) {
        mc_buf_adds(b, "<div class=\"where\">in <code>");
        mc_html_escs(b, t->dir);
        mc_buf_adds(b, "</code></div>");
    }
    differs_from_others(r, i, &d, &n);
    if (n > 1) {
        mc_buf_adds(b, "<div class=\"where\">flags: ");
        if (d.len) {
            mc_buf_adds(b, "<code>");
            mc_html_escs(b, d.s);
            mc_buf_adds(b, "</code>");
        } else {
            mc_buf_adds(b, "the same as the other entries'");
        }
        mc_buf_adds(b, "</div>");
    }
    mc_buf_adds(b, "</td>");
    mc_buf_release(&d);
}

static void
summary_row(struct mc_buf *b, const struct mc_report *r, size_t i)
{
    const struct mc_report_target *t = &r->v[i];
    int ok = !strcmp(t->status, "optimized");

    mc_buf_adds(b, "<tr>");
    source_cell(b, r, i);
    mc_buf_addf(b, "<td class=\"key\" title=\"%s\">%.8s</td>",
                t->key, t->key);
    mc_buf_addf(b, "<td><span class=\"%s\">", ok ? "ok" : "orig");
    mc_html_escs(b, t->status);
    mc_buf_adds(b, "</span>");
    if (t->reason[0])
        mc_html_elem(b, "div", "class=\"reason\"", t->reason);
    mc_buf_adds(b, "</td>");
    speedup_cell(b, t);
    mc_buf_addf(b, "<td class=\"num\" data-v=\"%zu\">%zu (%zu correct)"
                   "</td><td>", t->candidates, t->candidates, t->correct);
    mc_html_escs(b, t->strategy);
    mc_buf_adds(b, " / ");
    mc_html_escs(b, t->proposer);
    mc_buf_addf(b, "</td><td class=\"num\" data-v=\"%.3f\">", t->seconds);
    add_duration(b, t->seconds);
    mc_buf_adds(b, "</td></tr>\n");
}

static void
summary_table(const struct mc_report *r, struct mc_buf *b)
{
    size_t i;

    mc_buf_adds(b, "<h2 id=\"targets\">Targets</h2>\n");
    if (!r->n) {
        mc_buf_adds(b, "<p class=\"empty\">The cache holds no entries: "
                       "nothing has been searched yet (or every entry was "
                       "cleaned).</p>\n");
        return;
    }
    mc_buf_adds(b, "<table class=\"sum\" id=\"summary\">\n<thead><tr>"
                   "<th>source</th><th>key</th><th>status</th>"
                   "<th class=\"num\">speedup</th>"
                   "<th class=\"num\">candidates</th>"
                   "<th>strategy / proposer</th>"
                   "<th class=\"num\">time</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < r->n; i++)
        summary_row(b, r, i);
    mc_buf_adds(b, "</tbody>\n</table>\n");
}

enum mc_code
mc_report_html(const struct mc_report *r, struct mc_buf *out)
{
    enum mc_code rc = MC_OK;
    size_t i;

    page_head(r, out);
    summary_table(r, out);
    build_summary(r, out);
    for (i = 0; i < r->n && !rc; i++)
        rc = mc_report_target_html(&r->v[i], out);
    mc_buf_adds(out, "<script>\n");
    mc_buf_adds(out, script);
    mc_buf_adds(out, "</script>\n</body>\n</html>\n");
    return rc ? rc : mc_buf_status(out);
}
