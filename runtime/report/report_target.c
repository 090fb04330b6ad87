/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_target.c: one target's section of the report (report.h): its
 * figures, its plot, and a collapsed <details> per candidate with the
 * verdict, speedup, feedback, critique and the diffs against its parent
 * and against the original. Candidates are numbered by their step in
 * judging order, from 1, as the plot's x axis and the progress lines
 * count them.
 */
#include "mc_setup.h"
#include "report.h"
#include "eval.h"
#include "html.h"
#include "udiff.h"

/* Lines of context around each change in the diffs. */
#define DIFF_CONTEXT 3

/* A node's code, or the original's for parent -1. */
static const struct mc_buf *
code_of(const struct mc_report_target *t, int i)
{
    return i < 0 ? &t->traj.original : &t->traj.nodes[i].code;
}

/* One line of a diff (LEN bytes at S, newline excluded), escaped and
 * marked by its kind: file names, hunk header, added, removed. */
static void
diff_line(struct mc_buf *b, const char *s, size_t len)
{
    const char *cls = NULL;

    if (len >= 3 && (!strncmp(s, "---", 3) || !strncmp(s, "+++", 3)))
        cls = "f";
    else if (len && s[0] == '@')
        cls = "h";
    else if (len && s[0] == '+')
        cls = "a";
    else if (len && s[0] == '-')
        cls = "d";
    if (cls)
        mc_buf_addf(b, "<span class=\"%s\">", cls);
    mc_html_esc(b, s, len);
    mc_buf_adds(b, cls ? "</span>\n" : "\n");
}

/* The diff of code A (named AN) against code C (named CN) under the
 * heading TITLE (the caller's literal). */
static enum mc_code
add_diff(struct mc_buf *b, const char *title, const char *an,
         const struct mc_buf *a, const char *cn, const struct mc_buf *c)
{
    struct mc_buf d = MC_BUF_INIT;
    enum mc_code rc;
    size_t off, n;

    rc = mc_udiff(an, a->s, a->len, cn, c->s, c->len, DIFF_CONTEXT, &d);
    mc_buf_addf(b, "<h4>%s</h4>\n", title);
    if (!rc && !d.len)
        mc_buf_adds(b, "<p class=\"note\">no change</p>\n");
    else if (!rc)
        mc_buf_adds(b, "<pre class=\"diff\">");
    for (off = 0; !rc && off < d.len; off += n + 1) {
        n = strcspn(d.s + off, "\n");
        diff_line(b, d.s + off, n);
    }
    if (!rc && d.len)
        mc_buf_adds(b, "</pre>\n");
    mc_buf_release(&d);
    return rc;
}

/* Node I's diffs: against its parent and, when that is not the
 * original, against the original too. */
static enum mc_code
node_diffs(struct mc_buf *b, const struct mc_report_target *t, int i)
{
    const struct mc_search_node *nd = &t->traj.nodes[i];
    char title[64], an[32], cn[32];
    enum mc_code rc;

    snprintf(cn, sizeof(cn), "#%d", i + 1);
    if (nd->parent < 0)
        return add_diff(b, "Diff against the original (its parent)",
                        "original", code_of(t, -1), cn, &nd->code);
    snprintf(title, sizeof(title), "Diff against its parent, #%d",
             nd->parent + 1);
    snprintf(an, sizeof(an), "#%d", nd->parent + 1);
    rc = add_diff(b, title, an, code_of(t, nd->parent), cn, &nd->code);
    if (!rc)
        rc = add_diff(b, "Diff against the original", "original",
                      code_of(t, -1), cn, &nd->code);
    return rc;
}

/* The built-in proposer's state: a knob set ("O3+unroll(8)@L12"),
 * shown as its knobs. */
static void
knob_set(struct mc_buf *b, const char *label)
{
    const char *p = label;

    mc_buf_adds(b, "<p>Knob set: ");
    while (*p) {
        size_t n = strcspn(p, "+");

        mc_buf_adds(b, "<code>");
        mc_html_esc(b, p, n);
        mc_buf_adds(b, "</code>");
        p += n;
        if (*p == '+' && *++p)
            mc_buf_adds(b, " + ");
    }
    mc_buf_adds(b, "</p>\n");
}

/* A preformatted text block under HEADING, when TEXT is not empty. */
static void
text_block(struct mc_buf *b, const char *heading, const char *text)
{
    if (!text || !*text)
        return;
    mc_buf_addf(b, "<h4>%s</h4>\n", heading);
    mc_html_elem(b, "pre", "class=\"wrap\"", text);
    mc_buf_addc(b, '\n');
}

/* The one-line summary of node I. */
static void
node_summary(struct mc_buf *b, const struct mc_report_target *t, int i)
{
    const struct mc_search_node *nd = &t->traj.nodes[i];
    size_t added = 0, removed = 0;

    mc_buf_addf(b, "<summary><b>#%d</b> <code>", i + 1);
    mc_html_escs(b, nd->label);
    mc_buf_addf(b, "</code> &middot; <span class=\"%s\">%s</span>",
                nd->correct ? "ok" : "bad", mc_verdict_name(nd->verdict));
    if (nd->correct)
        mc_buf_addf(b, " &middot; %.2fx%s", nd->speedup,
                    nd->confirmed ? " confirmed" : " (not confirmed)");
    mc_buf_addf(b, " &middot; best u %.2fx", nd->u);
    if (nd->code.len &&
        !mc_udiff_count(code_of(t, nd->parent)->s,
                        code_of(t, nd->parent)->len, nd->code.s,
                        nd->code.len, &added, &removed))
        mc_buf_addf(b, " &middot; +%zu &minus;%zu", added, removed);
    if (i == t->best)
        mc_buf_adds(b, " &middot; <span class=\"lg-best\">kept</span>");
    mc_buf_adds(b, "</summary>\n");
}

/* Node I's figures (the summary line has its verdict and speedup). */
static void
node_facts(struct mc_buf *b, const struct mc_report_target *t, int i)
{
    const struct mc_search_node *nd = &t->traj.nodes[i];

    mc_buf_adds(b, "<dl class=\"facts\"><dt>parent</dt><dd>");
    if (nd->parent < 0)
        mc_buf_adds(b, "the original");
    else
        mc_buf_addf(b, "<a href=\"#t-%s-%d\">#%d</a>", t->key,
                    nd->parent + 1, nd->parent + 1);
    mc_buf_addf(b, "</dd><dt>depth</dt><dd>%d</dd><dt>speedup</dt>"
                   "<dd>%.3fx%s</dd><dt>reward</dt><dd>%.3f</dd>"
                   "<dt>u (best on its path)</dt><dd>%.3f</dd>"
                   "<dt>f_r, u_t (bins)</dt><dd>%d, %g</dd>",
                nd->depth, nd->speedup,
                nd->confirmed ? ", confirmed beyond the noise" : "",
                nd->reward, nd->u, nd->fr, nd->ut);
    if (nd->value >= 0)
        mc_buf_addf(b, "<dt>value</dt><dd>%.3f</dd>", nd->value);
    mc_buf_adds(b, "</dl>\n");
}

static enum mc_code
node_html(struct mc_buf *b, const struct mc_report_target *t, int i)
{
    const struct mc_search_node *nd = &t->traj.nodes[i];
    enum mc_code rc = MC_OK;

    /* The kept answer is open: its diff is what the target became. */
    mc_buf_addf(b, "<details class=\"cand%s%s\" id=\"t-%s-%d\"%s>\n",
                nd->correct ? "" : " bad", i == t->best ? " kept" : "",
                t->key, i + 1, i == t->best ? " open" : "");
    node_summary(b, t, i);
    node_facts(b, t, i);
    if (!strcmp(t->traj.proposer, "builtin") && nd->label && *nd->label)
        knob_set(b, nd->label);
    text_block(b, "Feedback", nd->detail);
    text_block(b, "Critique", nd->critique);
    if (nd->code.len)
        rc = node_diffs(b, t, i);
    else
        mc_buf_adds(b, "<p class=\"note\">No code: the proposal was "
                       "rejected before it was built.</p>\n");
    mc_buf_adds(b, "</details>\n");
    return rc;
}

/* One fact of T's list: NAME (a literal) and its escaped VALUE. */
static void
fact(struct mc_buf *b, const char *name, const char *value)
{
    if (!value || !*value)
        return;
    mc_buf_addf(b, "<dt>%s</dt>", name);
    mc_html_elem(b, "dd", NULL, value);
    mc_buf_addc(b, '\n');
}

static void
target_facts(struct mc_buf *b, const struct mc_report_target *t)
{
    char num[64];

    mc_buf_adds(b, "<dl class=\"facts\">\n");
    fact(b, "strategy", t->strategy);
    fact(b, "proposer", t->proposer);
    fact(b, "model", t->model);
    fact(b, "ranking", t->ranking);
    fact(b, "metric", t->metric);
    if (t->baseline >= 0) {
        snprintf(num, sizeof(num), "%.6f s", t->baseline);
        fact(b, "original's time", num);
    }
    snprintf(num, sizeof(num), "%zu (%zu correct)", t->candidates,
             t->correct);
    fact(b, "candidates", num);
    if (t->seconds >= 0) {
        snprintf(num, sizeof(num), "%.1f s", t->seconds);
        fact(b, "search time", num);
    }
    if (t->usage.requests) {
        snprintf(num, sizeof(num), "%llu requests, %llu tokens in, %llu "
                 "out, cost %.4f", t->usage.requests, t->usage.tokens_in,
                 t->usage.tokens_out, t->usage.cost);
        fact(b, "model usage", num);
    }
    fact(b, "created", t->created);
    mc_buf_adds(b, "</dl>\n");
}

/* The status line: optimized or not, the speedup (and why it is its
 * interval's lower bound, when it is), the reason. */
static void
target_status(struct mc_buf *b, const struct mc_report_target *t)
{
    int ok = !strcmp(t->status, "optimized");

    mc_buf_addf(b, "<p><span class=\"%s\">", ok ? "ok" : "orig");
    mc_html_escs(b, t->status);
    mc_buf_addf(b, "</span>, %.2fx", t->speedup);
    if (t->bound_why) {
        mc_buf_adds(b, " (lower bound");
        if (*t->bound_why) {
            mc_buf_adds(b, "; ");
            mc_html_escs(b, t->bound_why);
        }
        mc_buf_adds(b, ")");
    }
    if (t->low > 0)
        mc_buf_addf(b, " [%.2f&ndash;%.2f]", t->low, t->high);
    if (t->best >= 0)
        mc_buf_addf(b, ", kept <a href=\"#t-%s-%d\">#%d</a>", t->key,
                    t->best + 1, t->best + 1);
    if (t->reason[0]) {
        mc_buf_adds(b, ": ");
        mc_html_escs(b, t->reason);
    }
    mc_buf_adds(b, "</p>\n");
}

static const char legend[] =
    "<figcaption>Reward per candidate in judging order (its speedup when "
    "correct, 0 when not): <span class=\"lg-ok\">&#9679;</span> correct "
    "and confirmed, <span class=\"lg-ok\">&#9675;</span> correct, not "
    "confirmed beyond the noise, <span class=\"lg-bad\">&#10005;</span> "
    "not correct, <span class=\"lg-best\">&#9678;</span> the kept answer; "
    "<span class=\"lg-u\">&#9472;</span> running best u (the max-reward "
    "curve); dashed: the original (1x).</figcaption>\n";

enum mc_code
mc_report_target_html(const struct mc_report_target *t, struct mc_buf *out)
{
    enum mc_code rc;
    size_t i;

    mc_buf_addf(out, "<section class=\"target\" id=\"t-%s\">\n<h2>", t->key);
    mc_html_escs(out, t->source);
    mc_buf_addf(out, " <span class=\"key\">%s</span></h2>\n", t->key);
    target_status(out, t);
    target_facts(out, t);
    mc_buf_adds(out, "<figure>\n");
    rc = mc_report_plot(t, out);
    mc_buf_adds(out, legend);
    mc_buf_adds(out, "</figure>\n");
    if (!t->has_traj)
        mc_buf_adds(out, "<p class=\"note\">This entry stores no "
                         "trajectory (no search ran for it, or it was "
                         "stored before entries kept theirs).</p>\n");
    else
        mc_buf_addf(out, "<h3>Candidates (%zu)</h3>\n", t->traj.n);
    for (i = 0; !rc && i < t->traj.n; i++)
        rc = node_html(out, t, (int)i);
    mc_buf_adds(out, "</section>\n");
    return rc ? rc : mc_buf_status(out);
}
