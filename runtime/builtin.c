/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin.c: the built-in, compiler-guided proposer: its knob table
 * (built per target from the code, the profile and the compiler's
 * probe), the choice policy over it, labels and the rule-based critique.
 * The text of a variant is written by builtin_render.c.
 */
#include "mc_setup.h"
#include "builtin.h"
#include "alloc.h"
#include "ccprobe.h"
#include "cmodel.h"
#include "ctext.h"
#include "file.h"
#include "native.h"
#include "spawn.h"

#include <ctype.h>
#include <math.h>

/* Loop pragma operations (struct mc_knob's OP for MC_KK_LOOP). */
enum { LP_UNROLL, LP_IVDEP, LP_VEC, LP_NOVEC };
/* Kernel edits (OP for MC_KK_CUDA). */
enum { KE_RESTRICT = 1, KE_LB256, KE_LB1024, KE_FAST };

#define HOT_LOOPS 4         /* loops that get knobs of their own */
#define HOT_FNS 2           /* functions that get knobs of their own */
#define BIAS 0.02           /* a branch taken < 2% or > 98%: biased */
#define BIAS_MIN_COUNT 100  /* evaluations for a bias to count */
#define TRIP_MAX 16         /* unroll(T)@L for trip counts up to this */
#define TRIP_MIN_ENTRIES 8  /* loop entries for a trip count to count */

/* The general file-level options, with what they do; after the knobs
 * the code or the profile calls for. RISK 2: may change results. */
static const struct {
    const char *opt, *why;
    int tolerance, risk;
} file_opts[] = {
    {"unroll-loops", "less loop overhead in every loop", 0, 0},
    {"vect-cost-model=unlimited",
     "vectorization even where the cost model hesitated", 0, 0},
    {"loop-unroll-and-jam", "outer loops unrolled and fused for reuse", 0,
     0},
    {"tree-loop-distribution", "loops split so parts vectorize", 0, 0},
    {"loop-nest-optimize",
     "the polyhedral optimizer retiled and reordered the loop nests", 0, 1},
    {"graphite-identity", "the polyhedral model's code generation", 0, 1},
    {"ipa-pta", "interprocedural points-to analysis: fewer assumed "
                "aliases", 0, 0},
    {"prefetch-loop-arrays", "software prefetches in array loops", 0, 0},
    {"split-loops", "loops split where a condition flips once", 0, 0},
    {"unswitch-loops", "loop-invariant conditions hoisted out of loops", 0,
     0},
    {"peel-loops", "loops with few iterations peeled", 0, 0},
    {"no-trapping-math", "floating-point code assumed not to trap", 1, 2},
    {"fast-math", "floating-point reassociation lets reductions "
                  "vectorize", 1, 2},
};

/* ---- the table ---- */

static struct mc_knob *
add_knob(struct mc_builtin *b, int kind, const char *label, const char *opt,
         const char *why)
{
    struct mc_knob *k;

    if (b->nknobs >= MC_KNOBS_MAX || mc_builtin_knob(b, label) >= 0)
        return NULL;
    k = &b->knob[b->nknobs++];
    {
        unsigned char general = k->general;
        memset(k, 0, sizeof(*k));
        k->general = general;
    }
    k->kind = (unsigned char)kind;
    k->where = -1;
    snprintf(k->label, sizeof(k->label), "%s", label);
    k->opt = opt;
    k->why = why;
    return k;
}

int
mc_builtin_knob(const struct mc_builtin *b, const char *label)
{
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if (!strcmp(b->knob[i].label, label))
            return (int)i;
    return -1;
}

static unsigned long
bit_of(const struct mc_builtin *b, const char *label)
{
    int i = mc_builtin_knob(b, label);

    return i < 0 ? 0 : 1ul << i;
}

int
mc_builtin_rewrites(const struct mc_builtin *b, unsigned long tag)
{
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if ((tag >> i & 1) && b->knob[i].rewrite)
            return 1;
    return 0;
}

/* The probe item of knob K into OUT (SIZE bytes); "" when it needs none. */
static void
probe_item(const struct mc_builtin *b, const struct mc_knob *k, char *out,
           size_t size)
{
    out[0] = '\0';
    if (b->family == MC_CC_NVCC)
        return;
    if (k->kind == MC_KK_OPT)
        snprintf(out, size, "opt:%s", k->opt);
    else if (k->kind == MC_KK_FNOPT)
        snprintf(out, size, "fnopt:%s", k->opt);
    else if (k->kind == MC_KK_FNATTR)
        snprintf(out, size, "attr:%s", k->opt);
    else if (k->kind == MC_KK_HOTCOLD)
        snprintf(out, size, "attr:hot");
    else if (k->kind == MC_KK_EXPECT)
        snprintf(out, size, "expect");
    else if (k->kind == MC_KK_LOOP && k->op == LP_UNROLL)
        snprintf(out, size, "loop:GCC unroll %d", k->n);
    else if (k->kind == MC_KK_LOOP)
        snprintf(out, size, "loop:%s", k->opt + strlen("#pragma "));
}

/* Drop from the table the knobs whose bit is clear in KEEP. */
static void
compact(struct mc_builtin *b, unsigned long keep)
{
    size_t i, n = 0;

    for (i = 0; i < b->nknobs; i++)
        if (keep >> i & 1)
            b->knob[n++] = b->knob[i];
    b->nknobs = n;
}

/* The knobs T's compiler accepts, probed (once per identity). */
static unsigned long
accepted(struct mc_builtin *b, const struct mc_target *t)
{
    char items[MC_KNOBS_MAX][96];
    const char *uniq[MC_KNOBS_MAX];
    size_t i, j, n = 0;
    unsigned long yes = 0, keep = 0;
    struct mc_err err = MC_ERR_INIT;

    for (i = 0; i < b->nknobs; i++) {
        probe_item(b, &b->knob[i], items[i], sizeof(items[i]));
        for (j = 0; j < n && strcmp(uniq[j], items[i]); j++)
            ;
        if (items[i][0] && j == n)
            uniq[n++] = items[i];
    }
    if (n && mc_ccprobe(t, uniq, n, &yes, &err))
        yes = 0; /* no identity: none of the probed knobs */
    for (i = 0; i < b->nknobs; i++) {
        for (j = 0; j < n && strcmp(uniq[j], items[i]); j++)
            ;
        if (!items[i][0] || (yes >> j & 1))
            keep |= 1ul << i;
    }
    return keep;
}

/* The knobs that change TEXT at all: rendered alone, each differs from
 * TEXT rendered with no knob. */
static enum mc_code
applicable(struct mc_builtin *b, const char *text, size_t len,
           unsigned long *keep)
{
    struct mc_buf none = MC_BUF_INIT, one = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    *keep = 0;
    rc = mc_builtin_render(b, 0, text, len, &none);
    for (i = 0; !rc && i < b->nknobs; i++) {
        mc_buf_reset(&one);
        rc = mc_builtin_render(b, 1ul << i, text, len, &one);
        if (!rc && (one.len != none.len || memcmp(one.s, none.s, one.len)))
            *keep |= 1ul << i;
    }
    mc_buf_release(&none);
    mc_buf_release(&one);
    return rc;
}

/* ---- CUDA ---- */

static void
cuda_table(struct mc_builtin *b)
{
    static const struct {
        const char *label;
        int op;
        short group;
        const char *why;
    } kk[] = {
        {"restrict", KE_RESTRICT, 0,
         "unaliased pointer parameters let loads go through the read-only "
         "cache and be reordered"},
        {"launch_bounds(256,2)", KE_LB256, 2,
         "registers capped for two blocks of 256 threads per "
         "multiprocessor"},
        {"launch_bounds(1024,1)", KE_LB1024, 2,
         "registers capped for blocks of 1024 threads"},
        {"fast-intrinsics", KE_FAST, 0,
         "hardware approximations of the single-precision math "
         "functions"}};
    struct mc_knob *k;
    size_t i;

    if ((k = add_knob(b, MC_KK_LOOP, "unroll(8)", NULL,
                      "innermost loops unrolled 8 times")))
        k->n = 8, k->group = 1;
    if ((k = add_knob(b, MC_KK_LOOP, "unroll(4)", NULL,
                      "innermost loops unrolled 4 times")))
        k->n = 4, k->group = 1;
    for (i = 0; i < MC_ARRAY_SIZE(kk); i++) {
        if (kk[i].op == KE_FAST && !b->fast_math_ok)
            continue;
        if ((k = add_knob(b, MC_KK_CUDA, kk[i].label, NULL, kk[i].why))) {
            k->op = (unsigned char)kk[i].op;
            k->group = kk[i].group;
            k->risk = kk[i].op == KE_FAST ? 2 : 1;
        }
    }
}

static void
cuda_seeds(struct mc_builtin *b)
{
    static const char *const seeds[][2] = {
        {"restrict", NULL}, {"launch_bounds(256,2)", NULL},
        {"unroll(4)", NULL}, {"restrict", "unroll(4)"},
        {"fast-intrinsics", NULL}, {"unroll(8)", NULL},
        {"launch_bounds(1024,1)", NULL}};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(seeds); i++) {
        unsigned long s = bit_of(b, seeds[i][0]);
        if (seeds[i][1])
            s |= bit_of(b, seeds[i][1]);
        if (s)
            b->seeds[b->nseeds++] = s;
    }
}

/* ---- host code: what the code and the profile say ---- */

/* The profile's count for LINE, or -1. */
static double
count_at(const double *count, size_t ncount, size_t line)
{
    return count && line > 0 && line < ncount ? count[line] : -1;
}

/* How hot loop L is: its body's executions, or without a profile a
 * guess from its depth and floating-point math. */
static double
loop_weight(const struct mc_cmodel *m, size_t l, const double *count,
            size_t ncount)
{
    const struct mc_cloop *lp = &m->loop[l];
    double c = count_at(count, ncount, lp->body_line);

    if (count)
        return c > 0 ? c : 0;
    return pow(10, lp->depth + 1) * (1 + lp->fp + (lp->math > 0));
}

/* Insert index I of weight W into OUT (N of them, hottest first, WS
 * their weights; at most MAX kept); returns the new N. */
static size_t
ranked(int *out, double *ws, size_t n, size_t max, int i, double w)
{
    size_t j;

    for (j = n; j > 0 && ws[j - 1] < w; j--)
        if (j < max) {
            out[j] = out[j - 1];
            ws[j] = ws[j - 1];
        }
    if (j < max) {
        out[j] = i;
        ws[j] = w;
    }
    return n < max ? n + 1 : n;
}

/* The innermost loops (first on their line), hottest first, into OUT (at
 * most MAX); returns how many. */
static size_t
hot_loops(const struct mc_builtin *b, const double *count, size_t ncount,
          int *out, size_t max)
{
    const struct mc_cmodel *m = b->m;
    double ws[HOT_LOOPS];
    size_t i, n = 0;

    for (i = 0; i < m->nloop && max <= HOT_LOOPS; i++) {
        double w = loop_weight(m, i, count, ncount);
        if (m->loop[i].innermost && m->loop[i].first_on_line && w > 0 &&
            b->ok[m->loop[i].line])
            n = ranked(out, ws, n, max, (int)i, w);
    }
    return n;
}

/* How hot function F is: the executions of its lines, or the weight of
 * its hottest loop. */
static double
fn_weight(const struct mc_cmodel *m, size_t f, const double *count,
          size_t ncount)
{
    double w = 0;
    size_t l;

    if (count) {
        for (l = m->fn[f].line; l <= m->fn[f].end_line; l++)
            w += count_at(count, ncount, l) > 0 ? count[l] : 0;
        return w;
    }
    for (l = 0; l < m->nloop; l++)
        if (m->loop[l].fn == (int)f &&
            loop_weight(m, l, count, ncount) > w)
            w = loop_weight(m, l, count, ncount);
    return w;
}

/* Whether function F's declaration starts its line, which may change:
 * an attribute line can go before it. */
static int
fn_editable(const struct mc_builtin *b, size_t f)
{
    const struct mc_cfunc *fn = &b->m->fn[f];
    size_t i;

    for (i = b->m->line_off[fn->line]; i < fn->start; i++)
        if (!isspace((unsigned char)b->blank[i]))
            return 0;
    return b->ok[fn->line] && b->ok[mc_cmodel_line(b->m, fn->params)];
}

/* The editable functions with loops, hottest first, into OUT (at most
 * MAX); returns how many. */
static size_t
hot_fns(const struct mc_builtin *b, const double *count, size_t ncount,
        int *out, size_t max)
{
    double ws[HOT_FNS];
    size_t f, n = 0;

    for (f = 0; f < b->m->nfn && max <= HOT_FNS; f++) {
        double w = fn_weight(b->m, f, count, ncount);
        if (w > 0 && fn_editable(b, f))
            n = ranked(out, ws, n, max, (int)f, w);
    }
    return n;
}

/* The direction of each branch the profile shows biased into
 * B->expect; returns how many are. */
static size_t
biased_branches(struct mc_builtin *b, const double *count, size_t ncount)
{
    size_t i, n = 0;

    for (i = 0; i < b->m->nbr; i++) {
        const struct mc_cbranch *br = &b->m->br[i];
        double ci = count_at(count, ncount, br->line);
        double ct = count_at(count, ncount, br->then_line);

        b->expect[i] = -1;
        if (!br->then_line || ci < BIAS_MIN_COUNT || ct < 0 || ct > ci ||
            !b->ok[br->line] || !b->ok[mc_cmodel_line(b->m, br->cond_end)] ||
            mc_cmodel_has_word(b->blank, br->cond, br->cond_end,
                               "__builtin_expect"))
            continue;
        if (ct <= BIAS * ci)
            b->expect[i] = 0;
        else if (ct >= (1 - BIAS) * ci)
            b->expect[i] = 1;
        n += b->expect[i] >= 0;
    }
    return n;
}

/* Which functions are hot (the ones that run a fifth of the lines or
 * more) and cold (never ran) into B->heat; returns how many are either. */
static size_t
heat(struct mc_builtin *b, const double *count, size_t ncount)
{
    double total = 0, w;
    size_t f, n = 0, l;

    for (f = 0; f < b->m->nfn; f++)
        total += fn_weight(b->m, f, count, ncount);
    for (f = 0; f < b->m->nfn && total > 0; f++) {
        int code = 0;
        for (l = b->m->fn[f].line; l <= b->m->fn[f].end_line; l++)
            code |= count_at(count, ncount, l) >= 0;
        w = fn_weight(b->m, f, count, ncount);
        b->heat[f] = !fn_editable(b, f) || !code ? 0
                     : w >= 0.2 * total      ? 1
                     : w == 0               ? 2
                                            : 0;
        n += b->heat[f] != 0;
    }
    return n;
}

/* The average trip count of loop L from the profile, or 0: its header
 * line counts each entry and each iteration's return to the condition,
 * its body line each iteration. */
static int
trip_count(const struct mc_cloop *l, const double *count, size_t ncount)
{
    double head = count_at(count, ncount, l->line);
    double body = count_at(count, ncount, l->body_line);
    double entries = head - body, trips;

    if (l->body_line <= l->line || body <= 0 || entries < TRIP_MIN_ENTRIES)
        return 0;
    trips = body / entries;
    if (trips < 2 || trips > TRIP_MAX || fabs(trips - floor(trips + 0.5)) >
                                             0.01)
        return 0;
    return (int)floor(trips + 0.5);
}

/* ---- host code: the table ---- */

/* Interchange knobs for the nests whose inner loop strides through
 * memory while its parent's variable would not. */
static void
interchange_knobs(struct mc_builtin *b)
{
    const struct mc_cmodel *m = b->m;
    size_t i, pre, post, l;
    char label[48];
    int block;

    for (i = 0; i < m->nloop; i++) {
        const struct mc_cloop *n = &m->loop[i], *o;
        int lines_ok = 1;
        struct mc_knob *k;

        if (n->parent < 0 || n->strided == 0 ||
            n->pv_strided >= n->strided || n->pv_unit == 0 ||
            !mc_cmodel_nest(b->blank, m, n->parent, (int)i, &pre, &post,
                            &block))
            continue;
        o = &m->loop[n->parent];
        for (l = o->line; l <= mc_cmodel_line(m, o->end - 1); l++)
            lines_ok &= b->ok[l];
        if (!lines_ok || mc_cmodel_line(m, o->head_end - 1) != o->line ||
            mc_cmodel_line(m, n->head_end - 1) != n->line)
            continue;
        snprintf(label, sizeof(label), "interchange(%.12s,%.12s)@L%zu",
                 o->var, n->var, o->line);
        if ((k = add_knob(b, MC_KK_INTERCHANGE, label, NULL,
                          "the inner loop now walks memory with unit "
                          "stride")) != NULL) {
            k->where = (short)i;
            k->rewrite = 1;
            k->risk = 1;
        }
    }
}

static void
loop_knob(struct mc_builtin *b, int loop, int op, int n, const char *opt,
          const char *why)
{
    char label[48];
    const char *name = op == LP_UNROLL ? "unroll" : op == LP_IVDEP ? "ivdep"
                       : op == LP_VEC ? "vectorize" : "novector";
    struct mc_knob *k;

    if (op == LP_UNROLL)
        snprintf(label, sizeof(label), "unroll(%d)", n);
    else
        snprintf(label, sizeof(label), "%s", name);
    if (loop >= 0)
        snprintf(label + strlen(label), sizeof(label) - strlen(label),
                 "@L%zu", b->m ? b->m->loop[loop].line : 0);
    if ((k = add_knob(b, MC_KK_LOOP, label, opt, why)) == NULL)
        return;
    k->op = (unsigned char)op;
    k->where = (short)loop;
    k->n = (short)n;
    k->group = op == LP_UNROLL ? (short)(loop < 0 ? 1 : 100 + loop) : 0;
    k->risk = op == LP_IVDEP ? 2 : 0;
}

static const char *
ivdep_text(const struct mc_builtin *b)
{
    return b->family == MC_CC_CLANG
               ? "#pragma clang loop vectorize(assume_safety)"
               : "#pragma GCC ivdep";
}

/* Knobs for each of the NL hottest loops LOOPS. */
static void
hot_loop_knobs(struct mc_builtin *b, const int *loops, size_t nl,
               const double *count, size_t ncount)
{
    size_t i;

    for (i = 0; i < nl; i++) {
        int trip = trip_count(&b->m->loop[loops[i]], count, ncount);
        if (trip)
            loop_knob(b, loops[i], LP_UNROLL, trip, NULL,
                      "a loop unrolled fully at its measured trip count");
        if (nl < 2)
            continue;
        loop_knob(b, loops[i], LP_UNROLL, 8, NULL,
                  "the hottest loop unrolled 8 times");
        loop_knob(b, loops[i], LP_IVDEP, 0, ivdep_text(b),
                  "the hottest loop vectorized without assumed "
                  "dependences");
        if (b->family == MC_CC_CLANG)
            loop_knob(b, loops[i], LP_VEC, 0,
                      "#pragma clang loop vectorize(enable) "
                      "interleave(enable)",
                      "the hottest loop vectorized and interleaved");
    }
}

/* Whether C[FROM, TO) calls a function. */
static int
has_call(const char *c, size_t from, size_t to)
{
    static const char *const not_calls[] = {"if", "for", "while", "switch",
                                            "return", "sizeof"};
    size_t i, j, k;

    for (i = from; i < to; i++) {
        if (c[i] != '(' || i == from)
            continue;
        for (j = i; j > from && isspace((unsigned char)c[j - 1]); j--)
            ;
        for (k = j; k > from && (isalnum((unsigned char)c[k - 1]) ||
                                 c[k - 1] == '_');
             k--)
            ;
        if (k == j || isdigit((unsigned char)c[k]))
            continue;
        for (j = 0; j < MC_ARRAY_SIZE(not_calls); j++)
            if (mc_ctext_word_at(c, to, k, not_calls[j]))
                break;
        if (j == MC_ARRAY_SIZE(not_calls))
            return 1;
    }
    return 0;
}

/* How many pointer parameters function F has without a restrict. */
static int
plain_pointers(const struct mc_builtin *b, size_t f)
{
    const struct mc_cfunc *fn = &b->m->fn[f];
    const char *c = b->blank;
    size_t i;
    int n = 0, star = 0, depth = 0;

    if (mc_cmodel_has_word(c, fn->params, fn->params_end, "restrict") ||
        mc_cmodel_has_word(c, fn->params, fn->params_end, "__restrict") ||
        mc_cmodel_has_word(c, fn->params, fn->params_end, "__restrict__"))
        return 0;
    for (i = fn->params + 1; i < fn->params_end; i++) {
        depth += c[i] == '(' || c[i] == '[' || c[i] == '<';
        depth -= c[i] == ')' || c[i] == ']' || c[i] == '>';
        if (c[i] == '*' && depth == 0)
            star = 1;
        if ((c[i] == ',' && depth == 0) || i + 1 == fn->params_end) {
            n += star;
            star = 0;
        }
    }
    return n;
}

static void
fn_knob(struct mc_builtin *b, int kind, size_t f, const char *name,
        const char *opt, const char *why)
{
    const struct mc_cfunc *fn = &b->m->fn[f];
    char label[48];
    struct mc_knob *k;

    snprintf(label, sizeof(label), "%s@%.*s", name,
             (int)(fn->name_len < 24 ? fn->name_len : 24),
             b->blank + fn->name);
    if ((k = add_knob(b, kind, label, opt, why)) == NULL)
        return;
    k->where = (short)f;
    k->rewrite = kind == MC_KK_RESTRICT;
    k->risk = kind == MC_KK_RESTRICT ? 2 : 0;
}

static void
hot_fn_knobs(struct mc_builtin *b, const int *fns, size_t nf, int restrict_)
{
    size_t i;

    for (i = 0; i < nf; i++) {
        const struct mc_cfunc *fn = &b->m->fn[fns[i]];
        if (restrict_) {
            if (plain_pointers(b, (size_t)fns[i]) >= 2)
                fn_knob(b, MC_KK_RESTRICT, (size_t)fns[i], "restrict", NULL,
                        "pointer parameters promised not to alias: loads "
                        "hoisted and loops vectorized without checks");
            continue;
        }
        if (b->m->nfn < 2)
            break;
        if (b->family == MC_CC_GCC && !b->user_o3)
            fn_knob(b, MC_KK_FNOPT, (size_t)fns[i], "O3", "O3",
                    "O3 for this function only");
        if (b->family == MC_CC_GCC)
            fn_knob(b, MC_KK_FNOPT, (size_t)fns[i], "unroll-loops",
                    "unroll-loops", "its loops unrolled");
        if (has_call(b->blank, fn->body, fn->end))
            fn_knob(b, MC_KK_FNATTR, (size_t)fns[i], "flatten", "flatten",
                    "every call inside it inlined");
    }
}

static void
opt_knob(struct mc_builtin *b, const char *opt, const char *why, int risk)
{
    struct mc_knob *k;

    if (b->family == MC_CC_GCC &&
        (k = add_knob(b, MC_KK_OPT, opt, opt, why)) != NULL)
        k->risk = (unsigned char)risk;
}

/* The general knobs: file options and loop pragmas for every loop. */
static void
general_knobs(struct mc_builtin *b)
{
    size_t i;

    if (b->family == MC_CC_CLANG)
        loop_knob(b, -1, LP_VEC, 0,
                  "#pragma clang loop vectorize(enable) interleave(enable)",
                  "forced vectorization and interleaving of innermost "
                  "loops");
    for (i = 0; i < MC_ARRAY_SIZE(file_opts); i++) {
        if (file_opts[i].tolerance && !b->fast_math_ok)
            continue;
        if (i == 2) {
            loop_knob(b, -1, LP_UNROLL, 8, NULL,
                      "innermost loops unrolled 8 times");
            loop_knob(b, -1, LP_UNROLL, 4, NULL,
                      "innermost loops unrolled 4 times");
        }
        if (i == 4)
            loop_knob(b, -1, LP_IVDEP, 0, ivdep_text(b),
                      "the vectorizer ignores assumed loop-carried "
                      "dependences");
        opt_knob(b, file_opts[i].opt, file_opts[i].why, file_opts[i].risk);
    }
}

/* The table for host code, in the policy's order (see builtin.h). */
static void
host_table(struct mc_builtin *b, const double *count, size_t ncount)
{
    int loops[HOT_LOOPS], fns[HOT_FNS];
    size_t nl = hot_loops(b, count, ncount, loops, HOT_LOOPS);
    size_t nf = hot_fns(b, count, ncount, fns, HOT_FNS), i;
    int math = 0;
    struct mc_knob *k;

    for (i = 0; i < b->m->nloop; i++)
        math |= b->m->loop[i].math > 0;
    interchange_knobs(b);
    if (!b->user_o3)
        opt_knob(b, "O3", "more aggressive vectorization, unrolling and "
                          "inlining", 0);
    if (b->family == MC_CC_GCC && b->arch[0]) {
        char label[80];
        snprintf(label, sizeof(label), "arch=%s", b->arch);
        add_knob(b, MC_KK_ISA, label, NULL,
                 "this machine's wider vector instructions");
    }
    if (math)
        opt_knob(b, "no-math-errno", "math functions inline and vectorize "
                                     "(errno is not set)", 0);
    if (count && biased_branches(b, count, ncount))
        add_knob(b, MC_KK_EXPECT, "expect", NULL,
                 "branch layout follows the measured bias");
    if (count && heat(b, count, ncount) &&
        (k = add_knob(b, MC_KK_HOTCOLD, "hot-cold", NULL,
                      "hot functions optimized harder, unrun ones for "
                      "size")) != NULL)
        k->risk = 0;
    hot_loop_knobs(b, loops, nl, count, ncount);
    hot_fn_knobs(b, fns, nf, 1);
    for (i = b->nknobs; i < MC_KNOBS_MAX; i++)
        b->knob[i].general = 1; /* what add_knob() adds from here on */
    general_knobs(b);
    hot_fn_knobs(b, fns, nf, 0);
    if (nl)
        loop_knob(b, loops[0], LP_NOVEC, 0,
                  b->family == MC_CC_CLANG
                      ? "#pragma clang loop vectorize(disable)"
                      : "#pragma GCC novector",
                  "the hottest loop left scalar: its trip count is too "
                  "short for vectors");
}

/* O with each of the N knobs NEXT into B's seeds, those that won more
 * often in this cache first. */
static void
gcc_next_seeds(struct mc_builtin *b, unsigned long o,
               const char *const *next, size_t n)
{
    unsigned best_wins;
    size_t i, done = 0;
    unsigned long used = 0;

    while (done < n && b->nseeds < MC_ARRAY_SIZE(b->seeds)) {
        int pick = -1, k;
        best_wins = 0;
        for (i = 0; i < n; i++) {
            if (used >> i & 1)
                continue;
            k = mc_builtin_knob(b, next[i]);
            if (pick < 0 || (k >= 0 && b->knob[k].wins > best_wins)) {
                pick = (int)i;
                best_wins = k >= 0 ? b->knob[k].wins : 0;
            }
        }
        used |= 1ul << pick;
        b->seeds[b->nseeds++] = o | bit_of(b, next[pick]);
        done++;
    }
}

/* The seeds for host code: a bundle of what the evidence supports, then
 * the usual first steps. */
static void
host_seeds(struct mc_builtin *b)
{
    static const char *const gcc_next[] = {
        "unroll-loops", "vect-cost-model=unlimited", "unroll(8)",
        "loop-nest-optimize", "fast-math", "ivdep",
        "tree-loop-distribution"};
    static const char *const clang_next[] = {"vectorize", "unroll(8)",
                                             "ivdep", "unroll(4)"};
    unsigned long o = bit_of(b, "O3"), bundle;
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_ISA)
            o |= 1ul << i;
    bundle = o | bit_of(b, "no-math-errno") | bit_of(b, "expect") |
             bit_of(b, "hot-cold");
    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_INTERCHANGE)
            bundle |= 1ul << i;
    if (b->family == MC_CC_CLANG)
        bundle |= bit_of(b, "vectorize");
    b->seeds[b->nseeds++] = bundle;
    b->seeds[b->nseeds++] = o;
    for (i = 0; i < b->nknobs && b->nseeds < MC_ARRAY_SIZE(b->seeds); i++)
        if (b->knob[i].kind == MC_KK_RESTRICT) {
            b->seeds[b->nseeds++] = o | 1ul << i;
            break;
        }
    if (b->family == MC_CC_CLANG)
        for (i = 0; i < MC_ARRAY_SIZE(clang_next); i++)
            b->seeds[b->nseeds++] = bit_of(b, clang_next[i]);
    else
        gcc_next_seeds(b, o, gcc_next, MC_ARRAY_SIZE(gcc_next));
}

/* ---- what won before ---- */

/* The stem of knob K into OUT: what it is, not where. */
static void
stem(const struct mc_knob *k, char *out, size_t size)
{
    size_t at = strcspn(k->label, "@");

    if (k->kind == MC_KK_INTERCHANGE)
        snprintf(out, size, "interchange");
    else if (k->kind == MC_KK_ISA)
        snprintf(out, size, "arch");
    else if (k->label[at] && k->kind == MC_KK_LOOP)
        snprintf(out, size, "%.*s@loop", (int)at, k->label);
    else if (k->label[at])
        snprintf(out, size, "%.*s@function", (int)at, k->label);
    else
        snprintf(out, size, "%s", k->label);
}

/* The count of STEM in the wins file's TEXT, or 0. */
static unsigned
wins_of(const char *text, const char *stem_)
{
    size_t n = strlen(stem_);
    const char *p = text;

    while (p && *p) {
        if (!strncmp(p, stem_, n) && p[n] == ' ')
            return (unsigned)strtoul(p + n + 1, NULL, 10);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

#define WINS_FILE "builtin-wins" /* in the cache directory */

static void
wins_path(const char *cache_dir, struct mc_buf *out)
{
    mc_buf_addf(out, "%s/" WINS_FILE, cache_dir ? cache_dir : "");
}

/* The general knobs of B that won more often in this cache first (a
 * stable order otherwise); B->knob[].wins set from CACHE_DIR. */
static void
order_by_wins(struct mc_builtin *b, const char *cache_dir)
{
    struct mc_buf text = MC_BUF_INIT;
    char st[64];
    size_t i, j;

    if (!cache_dir || mc_file_read_shared(cache_dir, WINS_FILE,
                                          MC_FILE_SMALL, &text, NULL) ||
        !text.s) {
        mc_buf_release(&text);
        return;
    }
    for (i = 0; i < b->nknobs; i++) {
        stem(&b->knob[i], st, sizeof(st));
        b->knob[i].wins = wins_of(text.s, st);
    }
    for (i = 1; i < b->nknobs; i++) {
        struct mc_knob k = b->knob[i];
        if (!k.general)
            continue;
        for (j = i; j > 0 && b->knob[j - 1].general &&
                    b->knob[j - 1].wins < k.wins;
             j--)
            b->knob[j] = b->knob[j - 1];
        b->knob[j] = k;
    }
    mc_buf_release(&text);
}

void
mc_builtin_remember(const struct mc_builtin *b, unsigned long tag,
                    const char *cache_dir)
{
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT, out = MC_BUF_INIT;
    char st[64];
    size_t i;

    wins_path(cache_dir, &path);
    if (!cache_dir || mc_buf_status(&path))
        goto out;
    if (mc_file_read_shared(cache_dir, WINS_FILE, MC_FILE_SMALL, &text,
                            NULL))
        mc_buf_reset(&text);
    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1))
            continue;
        stem(&b->knob[i], st, sizeof(st));
        mc_buf_addf(&out, "%s %u\n", st,
                    (text.s ? wins_of(text.s, st) : 0) + 1);
    }
    /* The stems this tag does not have, as they were. */
    for (const char *p = text.s; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p), sp = strcspn(p, " ");

        if (sp < len && sp + 1 < sizeof(st)) {
            snprintf(st, sizeof(st), "%.*s", (int)sp, p);
            if (!out.s || !wins_of(out.s, st))
                mc_buf_addf(&out, "%.*s\n", (int)len, p);
        }
        p = nl ? nl + 1 : NULL;
    }
    if (out.s && !mc_buf_status(&out))
        mc_file_write_atomic(path.s, out.s, out.len, NULL); /* a hint */
out:
    mc_buf_release(&path);
    mc_buf_release(&text);
    mc_buf_release(&out);
}

/* ---- setting up ---- */

/* What -march=native means for T's compiler, into B->arch ("" when it
 * cannot tell): the architecture T's key has, when its caller resolved
 * it (a "cpu-" hash of the CPU's flags is no name -march takes), else
 * as the driver resolves it now. */
static void
native_arch(struct mc_builtin *b, const struct mc_target *t)
{
    if (!t->native_arch)
        mc_native_march(t->compiler, b->arch, sizeof(b->arch));
    else if (strncmp(t->native_arch, "cpu-", 4))
        snprintf(b->arch, sizeof(b->arch), "%s", t->native_arch);
}

/* The compiler family of T (gcc or clang, from `CC --version`) into B. */
static enum mc_code
host_family(struct mc_builtin *b, const struct mc_target *t,
            struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = 60};
    struct mc_spawn_result r;
    struct mc_strv argv = MC_STRV_INIT;
    size_t i;

    b->family = MC_CC_GCC;
    if (!t->compiler || mc_shell_split(t->compiler, &argv, err) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          t->compiler ? t->compiler : "");
    }
    mc_spawn_result_init(&r);
    if (mc_spawn(argv.v, &so, &r, NULL) == MC_OK && strstr(r.out.s, "clang"))
        b->family = MC_CC_CLANG;
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    if (b->family == MC_CC_GCC &&
        !strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        native_arch(b, t);
    for (i = 0; i < t->flags.n; i++)
        b->user_o3 |= !strcmp(t->flags.v[i], "-O3") ||
                      !strcmp(t->flags.v[i], "-Ofast");
    return MC_OK;
}

/* Keep the knobs that apply to TEXT; then the seeds. */
static enum mc_code
settle(struct mc_builtin *b, const struct mc_target *t, const char *text,
       size_t len)
{
    unsigned long keep;
    enum mc_code rc = applicable(b, text, len, &keep);

    if (rc)
        return rc;
    compact(b, keep);
    if (b->family != MC_CC_NVCC)
        order_by_wins(b, mc_conf_get(&t->conf, MC_SET_CACHE_DIR));
    if (b->family == MC_CC_NVCC)
        cuda_seeds(b);
    else
        host_seeds(b);
    return MC_OK;
}

static enum mc_code
host_init(struct mc_builtin *b, const struct mc_target *t, const char *text,
          size_t len, const double *count, size_t ncount)
{
    b->m = mc_calloc(1, sizeof(*b->m));
    if (!b->m || mc_cmodel_build(b->blank, len, b->m))
        return MC_ENOMEM;
    b->ok = mc_calloc(b->m->nlines + 2, 1);
    b->expect = mc_calloc(b->m->nbr + 1, 1);
    b->heat = mc_calloc(b->m->nfn + 1, 1);
    if (!b->ok || !b->expect || !b->heat)
        return MC_ENOMEM;
    mc_builtin_fences(text, len, b->ok, b->m->nlines);
    host_table(b, count, ncount);
    compact(b, accepted(b, t));
    return MC_OK;
}

enum mc_code
mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                const char *text, size_t len, const double *count,
                size_t ncount, struct mc_err *err)
{
    const char *kernel = mc_target_get(t, MC_OPT_KERNEL);
    enum mc_code rc;

    memset(b, 0, sizeof(*b));
    b->fast_math_ok = *mc_target_get(t, MC_OPT_TOLERANCE) != '\0';
    if (!text)
        text = "", len = 0;
    b->blank = mc_ctext_blank(text, len);
    b->len = len;
    if (!b->blank)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (t->lang != MC_LANG_CUDA) {
        rc = host_family(b, t, err);
        if (!rc && host_init(b, t, text, len, count, ncount))
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    } else if (strlen(kernel) >= sizeof(b->kernel)) {
        return mc_err_set(err, MC_EINVAL, "kernel name '%.40s...' too long",
                          kernel);
    } else {
        b->family = MC_CC_NVCC;
        memcpy(b->kernel, kernel, strlen(kernel) + 1);
        cuda_table(b);
        rc = MC_OK;
    }
    if (!rc && settle(b, t, text, len))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

void
mc_builtin_release(struct mc_builtin *b)
{
    if (b->m)
        mc_cmodel_release(b->m);
    mc_free(b->m);
    mc_free(b->blank);
    mc_free(b->ok);
    mc_free(b->expect);
    mc_free(b->heat);
    b->m = NULL;
    b->blank = NULL;
    b->ok = NULL;
    b->expect = NULL;
    b->heat = NULL;
}

void
mc_builtin_label(const struct mc_builtin *b, unsigned long tag,
                 struct mc_buf *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1))
            continue;
        if (any)
            mc_buf_addc(out, '+');
        mc_buf_adds(out, b->knob[i].label);
        any = 1;
    }
    if (!any)
        mc_buf_adds(out, "original");
}

/* ---- choosing ---- */

static int
tried(const struct mc_prop_node *nodes, size_t n, unsigned long tag)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (nodes[i].tag == tag)
            return 1;
    return 0;
}

/* How often adding KNOB made a correct child slower than its parent. */
static int
hurt_count(const struct mc_prop_node *nodes, size_t n, unsigned long knob)
{
    size_t i;
    int hurt = 0;

    for (i = 0; i < n; i++) {
        const struct mc_prop_node *c = &nodes[i];
        double ps;
        unsigned long ptag;

        if (!c->evaluated || !c->correct)
            continue;
        ptag = c->parent >= 0 ? nodes[c->parent].tag : 0;
        ps = c->parent >= 0 ? nodes[c->parent].speedup : 1.0;
        if ((c->tag & ~ptag) == knob && c->speedup < ps * 0.97)
            hurt++;
    }
    return hurt;
}

/* TAG with one knob at most of each group: the first in the table. */
static unsigned long
normal(const struct mc_builtin *b, unsigned long tag)
{
    size_t i, j;

    for (i = 0; i < b->nknobs; i++) {
        if (!(tag >> i & 1) || !b->knob[i].group)
            continue;
        for (j = i + 1; j < b->nknobs; j++)
            if (b->knob[j].group == b->knob[i].group)
                tag &= ~(1ul << j);
    }
    return tag;
}

/* The knobs B may still use. */
static unsigned long
allowed(const struct mc_builtin *b)
{
    unsigned long all = b->nknobs >= 64 ? ~0ul : (1ul << b->nknobs) - 1;

    return all & ~b->banned & ~b->blamed;
}

static int
add_pick(const struct mc_builtin *b, unsigned long *tags, size_t *ntags,
         size_t k, unsigned long tag, const struct mc_prop_node *nodes,
         size_t n)
{
    size_t i;

    tag = normal(b, tag);
    if (*ntags >= k || !tag || (tag & ~allowed(b)) || tried(nodes, n, tag))
        return 0;
    for (i = 0; i < *ntags; i++)
        if (tags[i] == tag)
            return 0;
    tags[(*ntags)++] = tag;
    return 1;
}

/* Fixes of BASE, which failed: drop one knob, the riskiest first. */
static void
repairs(const struct mc_builtin *b, unsigned long base,
        const struct mc_prop_node *nodes, size_t n, size_t k,
        unsigned long *tags, size_t *ntags)
{
    int risk;
    size_t i;

    for (risk = 2; risk >= 0; risk--)
        for (i = b->nknobs; i-- > 0;)
            if ((base >> i & 1) && b->knob[i].risk == risk)
                add_pick(b, tags, ntags, k, base & ~(1ul << i), nodes, n);
}

/* Add candidate TAG with the value model's prior to the M of V, kept
 * in order: higher values first, earlier candidates first among
 * equals. */
static void
add_ranked(struct mc_builtin *b, int parent, unsigned long tag,
           unsigned long *cand, double *v, size_t *m)
{
    double x = b->prior(b->prior_arg, parent, tag);
    size_t j;

    for (j = *m; j > 0 && v[j - 1] < x; j--) {
        cand[j] = cand[j - 1];
        v[j] = v[j - 1];
    }
    cand[j] = tag;
    v[j] = x;
    (*m)++;
}

/* The value model's choice from PARENT: the knob sets one knob away
 * (and from the original, the seeds too) in the order of its prior,
 * into TAGS up to K. */
static void
choose_by_value(struct mc_builtin *b, const struct mc_prop_node *nodes,
                size_t n, int parent, size_t k, unsigned long *tags,
                size_t *ntags)
{
    unsigned long base = parent >= 0 ? nodes[parent].tag : 0;
    unsigned long cand[MC_KNOBS_MAX + 16];
    double v[MC_KNOBS_MAX + 16];
    size_t m = 0, i;

    for (i = 0; base == 0 && i < b->nseeds && i < 16; i++) {
        unsigned long tag = normal(b, b->seeds[i]);

        if (tag && !(tag & ~allowed(b)) && !tried(nodes, n, tag))
            add_ranked(b, parent, tag, cand, v, &m);
    }
    for (i = 0; i < b->nknobs; i++) {
        unsigned long tag = normal(b, base | 1ul << i);

        if (!(base >> i & 1) && tag && !(tag & ~allowed(b)) &&
            !tried(nodes, n, tag))
            add_ranked(b, parent, tag, cand, v, &m);
    }
    for (i = 0; i < m && *ntags < k; i++)
        add_pick(b, tags, ntags, k, cand[i], nodes, n);
}

void
mc_builtin_choose(struct mc_builtin *b, const struct mc_prop_node *nodes,
                  size_t n, int parent, size_t k, int repair,
                  unsigned long *tags, size_t *ntags)
{
    unsigned long base = parent >= 0 ? nodes[parent].tag : 0;
    size_t i, j, round;

    *ntags = 0;
    if (repair && parent >= 0)
        repairs(b, base, nodes, n, k, tags, ntags);
    /* With a value model, its order of the seeds and of the knob sets
     * one knob away. */
    if (b->prior)
        choose_by_value(b, nodes, n, parent, k, tags, ntags);
    /* From the original, the seeds come first. */
    for (i = 0; base == 0 && i < b->nseeds; i++)
        add_pick(b, tags, ntags, k, b->seeds[i], nodes, n);
    /* Climb from the base: add one knob, those that never hurt first. */
    for (round = 0; round < 3; round++)
        for (i = 0; i < b->nknobs; i++) {
            int hurt = hurt_count(nodes, n, 1ul << i);
            if (!(base >> i & 1) && (int)round == (hurt > 1 ? 2 : hurt))
                add_pick(b, tags, ntags, k, base | 1ul << i, nodes, n);
        }
    /* Then two knobs more, in the table's order. */
    for (i = 0; *ntags < k && i < b->nknobs; i++)
        for (j = i + 1; *ntags < k && j < b->nknobs; j++)
            add_pick(b, tags, ntags, k, base | 1ul << i | 1ul << j, nodes,
                     n);
}

/* ---- learning and critique ---- */

/* The riskiest knob of TAG (the later one among equals), or NULL. */
static const struct mc_knob *
riskiest(const struct mc_builtin *b, unsigned long tag)
{
    const struct mc_knob *k = NULL;
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if ((tag >> i & 1) && (!k || b->knob[i].risk >= k->risk))
            k = &b->knob[i];
    return k;
}

void
mc_builtin_learn(struct mc_builtin *b, const struct mc_prop_node *nodes,
                 size_t i, const char *detail, struct mc_buf *out)
{
    const struct mc_prop_node *c = &nodes[i];
    unsigned long ptag = c->parent >= 0 ? nodes[c->parent].tag : 0;
    unsigned long added = c->tag & ~ptag, removed = ptag & ~c->tag;
    double ps = c->parent >= 0 && nodes[c->parent].correct
                    ? nodes[c->parent].speedup
                    : 1.0;
    struct mc_buf what = MC_BUF_INIT;
    const struct mc_knob *k = riskiest(b, added);

    if (added) {
        mc_buf_adds(&what, "added ");
        mc_builtin_label(b, added, &what);
    }
    if (removed) {
        mc_buf_adds(&what, what.len ? ", removed " : "removed ");
        mc_builtin_label(b, removed, &what);
    }
    if (!what.len)
        mc_buf_adds(&what, "same knobs");
    if (c->compile_error) {
        b->banned |= added;
        mc_buf_addf(out, "%s: does not compile with this compiler (%.100s);"
                         " never used again", what.s, detail);
    } else if (!c->correct) {
        /* Blame the riskiest new knob; the others may be fine. */
        if (k)
            b->blamed |= 1ul << (k - b->knob);
        mc_buf_addf(out, "%s: %.120s; %s likely changes the program's "
                         "meaning here (dropped)", what.s, detail,
                    k ? k->label : "a knob");
    } else if (c->speedup > ps * 1.05) {
        mc_buf_addf(out, "%s: %.2fx, %.2fx its parent: %s paid off; build "
                         "on it", what.s, c->speedup, c->speedup / ps,
                    k ? k->why : "the change");
    } else if (c->speedup < ps * 0.97) {
        mc_buf_addf(out, "%s: %.2fx, slower than its parent (%.2fx): code "
                         "growth or worse scheduling; not added here again",
                    what.s, c->speedup, ps);
    } else {
        mc_buf_addf(out, "%s: %.2fx, no change beyond the noise: the loops "
                         "are already as fast at the user's level, or "
                         "memory-bound", what.s, c->speedup);
    }
    mc_buf_release(&what);
}
