/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_plot.c: a target's max-reward curve as inline SVG (report.h):
 * the reward of each candidate in judging order, and the running best
 * u over the candidates judged so far as a step line, as the paper plots
 * a search. Coordinates are computed here; the look is the page's CSS.
 */
#include "mc_setup.h"
#include "report.h"
#include "eval.h"
#include "html.h"

#include <math.h>

/* The plot's size and its margins, in SVG user units. */
#define W 900.0
#define H 260.0
#define ML 52.0
#define MR 14.0
#define MT 12.0
#define MB 40.0
#define MAX_X_LABELS 16

struct frame {
    size_t n;        /* candidates */
    double ymax;     /* the top of the y axis */
    double ystep;    /* between y ticks */
};

static double
px(const struct frame *f, double step)
{
    return ML + (W - ML - MR) * (step - 0.5) / (double)(f->n ? f->n : 1);
}

static double
py(const struct frame *f, double v)
{
    return MT + (H - MT - MB) * (1 - v / f->ymax);
}

/* A value that a plot may show: NaN and negatives are 0. */
static double
shown(double v)
{
    return v > 0 && isfinite(v) ? v : 0;
}

/* The y axis of T: a round step (1, 2 or 5 times a power of ten) that
 * gives at most six ticks up to above the highest reward, u and 1x. */
static void
frame_of(const struct mc_report_target *t, struct frame *f)
{
    double top = 1, mag, unit;
    size_t i;

    f->n = t->traj.n;
    for (i = 0; i < t->traj.n; i++) {
        top = fmax(top, shown(t->traj.nodes[i].reward));
        top = fmax(top, shown(t->traj.nodes[i].u));
    }
    top *= 1.08;
    mag = pow(10, floor(log10(top / 5)));
    unit = top / 5 / mag;
    f->ystep = mag * (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10);
    f->ymax = ceil(top / f->ystep) * f->ystep;
}

static void
y_axis(struct mc_buf *b, const struct frame *f)
{
    double v;
    int k;

    for (k = 0; (v = k * f->ystep) <= f->ymax * (1 + 1e-9); k++) {
        double y = py(f, v);

        mc_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
                       "x2=\"%.1f\" y2=\"%.1f\"/>\n<text x=\"%.1f\" "
                       "y=\"%.1f\" text-anchor=\"end\">%gx</text>\n",
                    ML, y, W - MR, y, ML - 6, y + 4, v);
    }
    mc_buf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
                   "x2=\"%.1f\" y2=\"%.1f\"/>\n",
                ML, MT, ML, H - MB);
    mc_buf_addf(b, "<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 12 %.1f)\">reward (speedup)"
                   "</text>\n", (H - MB + MT) / 2, (H - MB + MT) / 2);
}

static void
x_axis(struct mc_buf *b, const struct frame *f)
{
    size_t every = (f->n + MAX_X_LABELS - 1) / MAX_X_LABELS, i;

    mc_buf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
                   "x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, H - MB, W - MR,
                H - MB);
    for (i = 1; i <= f->n; i += every ? every : 1)
        mc_buf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
                       "x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" "
                       "y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n",
                    px(f, (double)i), H - MB, px(f, (double)i), H - MB + 4,
                    px(f, (double)i), H - MB + 16, i);
    mc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                   "candidate (judging order)</text>\n",
                (ML + W - MR) / 2, H - 6);
}

/* The original's 1x, dashed. */
static void
base_line(struct mc_buf *b, const struct frame *f)
{
    mc_buf_addf(b, "<line class=\"base\" x1=\"%.1f\" y1=\"%.1f\" "
                   "x2=\"%.1f\" y2=\"%.1f\"><title>the original (1x)"
                   "</title></line>\n", ML, py(f, 1), W - MR, py(f, 1));
}

/* The running best u after each step, as a step line: level over the
 * whole width of each candidate's slot. */
static void
u_line(struct mc_buf *b, const struct mc_report_target *t,
       const struct frame *f)
{
    double best;
    size_t i;

    if (!f->n)
        return;
    best = shown(t->traj.nodes[0].u);
    mc_buf_addf(b, "<path class=\"u\" d=\"M%.1f %.1fH%.1f", px(f, 0.5),
                py(f, best), px(f, 1.5));
    for (i = 1; i < f->n; i++) {
        best = fmax(best, shown(t->traj.nodes[i].u));
        mc_buf_addf(b, "V%.1fH%.1f", py(f, best), px(f, (double)i + 1.5));
    }
    mc_buf_adds(b, "\"><title>running best u</title></path>\n");
}

/* The tooltip of node I: what the candidate is and how it did. */
static void
point_title(struct mc_buf *b, const struct mc_search_node *nd, size_t i)
{
    mc_buf_addf(b, "<title>#%zu ", i + 1);
    mc_html_escs(b, nd->label);
    mc_buf_addf(b, ": %s", mc_verdict_name(nd->verdict));
    if (nd->correct)
        mc_buf_addf(b, ", %.2fx%s", nd->speedup,
                    nd->confirmed ? " confirmed" : " not confirmed");
    mc_buf_addf(b, "; best u %.2fx</title>", nd->u);
}

/* One point per candidate: a circle (hollow when not confirmed), a red
 * cross at 0 when not correct, a ring around the kept answer. */
static void
point(struct mc_buf *b, const struct mc_report_target *t,
      const struct frame *f, size_t i)
{
    const struct mc_search_node *nd = &t->traj.nodes[i];
    double x = px(f, (double)i + 1);
    double y = py(f, nd->correct ? shown(nd->reward) : 0);
    int kept = (int)i == t->best;

    mc_buf_addf(b, "<a href=\"#t-%s-%zu\"><g class=\"pt%s%s%s\">", t->key,
                i + 1, nd->correct ? "" : " pt-bad",
                nd->correct && !nd->confirmed ? " pt-nc" : "",
                kept ? " pt-best" : "");
    point_title(b, nd, i);
    if (!nd->correct)
        mc_buf_addf(b, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\"/>", x - 4,
                    y - 4);
    else
        mc_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>", x, y);
    if (kept)
        mc_buf_addf(b, "<circle class=\"ring\" cx=\"%.1f\" cy=\"%.1f\" "
                       "r=\"9\"/>", x, y);
    mc_buf_adds(b, "</g></a>\n");
}

enum mc_code
mc_report_plot(const struct mc_report_target *t, struct mc_buf *out)
{
    struct frame f;
    size_t i;

    frame_of(t, &f);
    mc_buf_addf(out, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/"
                     "svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 "
                     "%.0f %.0f\" role=\"img\">\n<title>Reward per "
                     "candidate: ", W, H, W, H);
    mc_html_escs(out, t->source);
    mc_buf_adds(out, "</title>\n");
    y_axis(out, &f);
    x_axis(out, &f);
    base_line(out, &f);
    if (!f.n)
        mc_buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle"
                         "\">no candidates recorded</text>\n",
                    (ML + W - MR) / 2, (MT + H - MB) / 2);
    u_line(out, t, &f);
    for (i = 0; i < f.n; i++)
        point(out, t, &f, i);
    mc_buf_adds(out, "</svg>\n");
    return mc_buf_status(out);
}
