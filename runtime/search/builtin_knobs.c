/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin_knobs.c: the built-in proposer's knob table (builtin.h): the
 * knobs a target's code, its profile and its options call for, in the
 * policy's order, those the compiler accepts and those that change the
 * text, and the seeds for CUDA (builtin_seeds.c: for host code).
 * builtin.c sets the table up, remembers what won and chooses from it.
 */
#include "mc_setup.h"
#include "builtin.h"
#include "ccprobe.h"
#include "cblock.h"
#include "cfuse.h"
#include "cjam.h"
#include "cmodel.h"
#include "cscalar.h"
#include "ctext.h"

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
#define BLOCK_NESTS 2       /* nests that get blocking knobs */
#define JAM_NESTS 4         /* nests that get unroll-and-jam knobs */
#define FUSE_NESTS 4        /* sweeps that get a fusion knob */

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

unsigned long
mc_builtin_bit(const struct mc_builtin *b, const char *label)
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
    if (k->kind == MC_KK_OPT || k->kind == MC_KK_EXACT)
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
void
mc_builtin_compact(struct mc_builtin *b, unsigned long keep)
{
    size_t i, n = 0;

    for (i = 0; i < b->nknobs; i++)
        if (keep >> i & 1)
            b->knob[n++] = b->knob[i];
    b->nknobs = n;
}

/* The knobs T's compiler accepts, probed (once per identity). */
unsigned long
mc_builtin_accepted(struct mc_builtin *b, const struct mc_target *t)
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
enum mc_code
mc_builtin_applicable(struct mc_builtin *b, const char *text, size_t len,
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

void
mc_builtin_cuda_table(struct mc_builtin *b)
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

void
mc_builtin_cuda_seeds(struct mc_builtin *b)
{
    static const char *const seeds[][2] = {
        {"restrict", NULL}, {"launch_bounds(256,2)", NULL},
        {"unroll(4)", NULL}, {"restrict", "unroll(4)"},
        {"fast-intrinsics", NULL}, {"unroll(8)", NULL},
        {"launch_bounds(1024,1)", NULL}};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(seeds); i++) {
        unsigned long s = mc_builtin_bit(b, seeds[i][0]);
        if (seeds[i][1])
            s |= mc_builtin_bit(b, seeds[i][1]);
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
        if (m->loop[i].innermost && m->loop[i].placeable && w > 0 &&
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

/* Whether an attribute line can go before function F's declaration
 * (cmodel.h), which starts its line, and that line may change. */
static int
fn_editable(const struct mc_builtin *b, size_t f)
{
    const struct mc_cfunc *fn = &b->m->fn[f];
    size_t i;

    for (i = b->m->line_off[fn->line]; i < fn->start; i++)
        if (!isspace((unsigned char)b->blank[i]))
            return 0;
    return fn->placeable && b->ok[fn->line] &&
           b->ok[mc_cmodel_line(b->m, fn->params)];
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
        if (!br->then_line || !br->placeable || ci < BIAS_MIN_COUNT ||
            ct < 0 || ct > ci ||
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
/* Whether every line from loop FROM's to loop TO's last may change
 * (outside the fences, b->ok). */
static int
lines_ok(const struct mc_builtin *b, int from, int to)
{
    size_t l;

    for (l = b->m->loop[from].line;
         l <= mc_cmodel_line(b->m, b->m->loop[to].end - 1); l++)
        if (!b->ok[l])
            return 0;
    return 1;
}

static void
interchange_knobs(struct mc_builtin *b)
{
    const struct mc_cmodel *m = b->m;
    size_t i, pre, post;
    char label[48];
    int block;

    for (i = 0; i < m->nloop; i++) {
        const struct mc_cloop *n = &m->loop[i], *o;
        struct mc_knob *k;

        if (n->parent < 0 || n->strided == 0 ||
            n->pv_strided >= n->strided || n->pv_unit == 0 ||
            !mc_cmodel_nest(b->blank, m, n->parent, (int)i, &pre, &post,
                            &block))
            continue;
        o = &m->loop[n->parent];
        /* No directive inside the nest, and its inner loop takes a
         * pragma after the rewrite as before it. */
        if (!lines_ok(b, n->parent, n->parent) || !o->plain || !n->placeable ||
            o->pragma || n->pragma ||
            mc_cmodel_line(m, o->head_end - 1) != o->line ||
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

/* Scalar replacement knobs for the innermost loops where it is sure to
 * be right (cscalar.h): with __restrict where only that rules out
 * aliasing. One rewrites the header of a loop that an interchange
 * rewrites too, so the two share a group. */
static void
scalar_knobs(struct mc_builtin *b)
{
    const struct mc_cmodel *m = b->m;
    struct mc_cscalar sr;
    size_t i, j;
    char label[48];

    for (i = 0; i < m->nloop; i++) {
        const struct mc_cloop *n = &m->loop[i];
        struct mc_knob *k;

        if (!mc_cscalar_loop(b->blank, b->len, m, (int)i, &sr) ||
            !lines_ok(b, (int)i, (int)i))
            continue;
        snprintf(label, sizeof(label), "%s@L%zu",
                 sr.needs_restrict ? "scalar-restrict" : "scalar", n->line);
        k = add_knob(b, MC_KK_SCALAR, label, NULL,
                     "an element the loop reuses stays in a register "
                     "across it");
        if (!k)
            continue;
        k->where = (short)i;
        k->op = (unsigned char)sr.needs_restrict;
        k->rewrite = 1;
        k->risk = sr.needs_restrict ? 2 : 1;
        for (j = 0; j < b->nknobs; j++)
            if (b->knob[j].kind == MC_KK_INTERCHANGE &&
                b->knob[j].where == (short)i)
                k->group = b->knob[j].group = (short)(300 + (i & 0x3fff));
    }
}

/* Unroll-and-jam knobs (4 and 2 copies) for the first JAM_NESTS nests
 * where it is sure to be right (cjam.h). They rewrite the inner loop
 * that an interchange, a scalar replacement or a blocking rewrites too,
 * so all of them share a group. */
static void
jam_knobs(struct mc_builtin *b)
{
    static const int factors[] = {4, 2};
    const struct mc_cmodel *m = b->m;
    struct mc_cjam jam;
    size_t i, f, l;
    int nests = 0;
    char label[48];

    for (i = 0; i < m->nloop && nests < JAM_NESTS; i++) {
        const struct mc_cloop *o;
        short group = (short)(300 + (i & 0x3fff));

        if (!mc_cjam_nest(b->blank, b->len, m, (int)i, &jam) ||
            !lines_ok(b, jam.outer, jam.outer))
            continue;
        o = &m->loop[jam.outer];
        for (f = 0; f < MC_ARRAY_SIZE(factors); f++) {
            struct mc_knob *k;
            snprintf(label, sizeof(label), "jam%d(%.12s)@L%zu", factors[f],
                     o->var, o->line);
            k = add_knob(b, MC_KK_JAM, label, NULL,
                         "outer iterations share one run of the inner "
                         "loop: independent sums, loads reused");
            if (!k)
                return;
            k->where = (short)i;
            k->n = (short)factors[f];
            k->op = (unsigned char)jam.needs_restrict;
            k->group = group;
            k->rewrite = 1;
            k->risk = jam.needs_restrict ? 2 : 1;
        }
        /* An interchange of the outer loop with its own parent rewrites
         * the outer header too. */
        for (l = 0; l < b->nknobs; l++)
            if ((b->knob[l].kind == MC_KK_INTERCHANGE ||
                 b->knob[l].kind == MC_KK_SCALAR) &&
                (b->knob[l].where == (short)i ||
                 b->knob[l].where == (short)jam.outer))
                b->knob[l].group = group;
        nests++;
    }
}

/* Every knob of group FROM (not 0) into group TO. */
static void
regroup(struct mc_builtin *b, short from, short to)
{
    size_t i;

    for (i = 0; from && i < b->nknobs; i++)
        if (b->knob[i].group == from)
            b->knob[i].group = to;
}

/* Fusion knobs for the first FUSE_NESTS sweeps that a copy-back follows
 * (cfuse.h). The rewrite changes both nests, which their other
 * rewrites (interchange, scalar replacement, unroll-and-jam, blocking)
 * change too: all of those, and whatever shares a group with them,
 * share one group with it. Added after blocking, it sees them all. */
static void
fuse_knobs(struct mc_builtin *b)
{
    const struct mc_cmodel *m = b->m;
    struct mc_cfuse f;
    size_t i, l;
    int nests = 0;
    char label[48];

    for (i = 0; i < m->nloop && nests < FUSE_NESTS; i++) {
        short group = (short)(300 + (i & 0x3fff));
        struct mc_knob *k;

        if (!mc_cfuse_nest(b->blank, b->len, m, (int)i, &f) ||
            !lines_ok(b, f.sweep, f.copy))
            continue;
        snprintf(label, sizeof(label), "fuse(%.12s)@L%zu",
                 m->loop[f.sweep].var, m->loop[f.sweep].line);
        k = add_knob(b, MC_KK_FUSE, label, NULL,
                     "the copy-back joins the sweep: each row is copied "
                     "while it is still in the cache");
        if (!k)
            return;
        k->where = (short)i;
        k->op = 1;
        k->rewrite = 1;
        k->risk = 2;
        for (l = 0; l < b->nknobs; l++) {
            short w = b->knob[l].where;
            if ((b->knob[l].kind == MC_KK_INTERCHANGE ||
                 b->knob[l].kind == MC_KK_SCALAR ||
                 b->knob[l].kind == MC_KK_JAM ||
                 b->knob[l].kind == MC_KK_BLOCK) &&
                (w == f.sweep || w == f.sweep_in || w == f.copy ||
                 w == f.copy_in)) {
                regroup(b, b->knob[l].group, group);
                b->knob[l].group = group;
            }
        }
        k->group = group;
        nests++;
    }
}

/* Blocking knobs, one per tile size in cblock.h's order, for the first
 * BLOCK_NESTS nests where it is sure to be right. They rewrite the
 * headers that the nest's interchange and scalar replacement rewrite,
 * so all of them share a group. Added last, as the table fills, they
 * leave the rest of it as it was. */
static void
block_knobs(struct mc_builtin *b)
{
    const struct mc_cmodel *m = b->m;
    struct mc_cblock bk;
    int sizes[MC_CBLOCK_SIZES], nests = 0, d, s;
    size_t i, j;
    char label[48];

    for (i = 0; i < m->nloop && nests < BLOCK_NESTS; i++) {
        short group = (short)(300 + (i & 0x3fff));
        int any = 0;

        if (!mc_cblock_nest(b->blank, b->len, m, (int)i, &bk) ||
            !lines_ok(b, bk.loop[0], bk.loop[0]))
            continue;
        mc_cblock_sizes(&bk, sizes);
        for (s = 0; s < MC_CBLOCK_SIZES; s++) {
            struct mc_knob *k;
            snprintf(label, sizeof(label), "block%d(%.8s,%.8s)@L%zu",
                     sizes[s], m->loop[bk.loop[bk.depth - 2]].var,
                     m->loop[bk.loop[bk.depth - 1]].var, m->loop[i].line);
            k = add_knob(b, MC_KK_BLOCK, label, NULL,
                         "the nest walks tiles that stay in the cache");
            if (!k)
                break;
            k->where = (short)i;
            k->n = (short)sizes[s];
            k->op = (unsigned char)bk.needs_restrict;
            k->group = group;
            k->rewrite = 1;
            k->risk = bk.needs_restrict ? 2 : 1;
            k->general = 0;
            any = 1;
        }
        for (j = 0; any && j < b->nknobs; j++)
            for (d = 1; d < bk.depth; d++)
                if ((b->knob[j].kind == MC_KK_INTERCHANGE ||
                     b->knob[j].kind == MC_KK_SCALAR ||
                     b->knob[j].kind == MC_KK_JAM) &&
                    b->knob[j].where == (short)bk.loop[d])
                    b->knob[j].group = group;
        nests += any;
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

/* How many pointer parameters function F has without a restrict that
 * may take one (mc_cmodel_object_pointer()); 0 when one has one. */
static int
plain_pointers(const struct mc_builtin *b, size_t f)
{
    const struct mc_cfunc *fn = &b->m->fn[f];
    const char *c = b->blank;
    size_t i, from = fn->params + 1;
    int n = 0, depth = 0;

    if (mc_cmodel_has_word(c, fn->params, fn->params_end, "restrict") ||
        mc_cmodel_has_word(c, fn->params, fn->params_end, "__restrict") ||
        mc_cmodel_has_word(c, fn->params, fn->params_end, "__restrict__"))
        return 0;
    for (i = fn->params + 1; i < fn->params_end; i++) {
        if ((c[i] == ',' && depth == 0) || i + 1 == fn->params_end) {
            n += mc_cmodel_object_pointer(c, b->len, from, i);
            from = i + 1;
            continue;
        }
        depth += c[i] == '(' || c[i] == '[' || c[i] == '<';
        depth -= c[i] == ')' || c[i] == ']' || c[i] == '>';
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
void
mc_builtin_host_table(struct mc_builtin *b, const double *count,
                      size_t ncount)
{
    int loops[HOT_LOOPS], fns[HOT_FNS];
    size_t nl = hot_loops(b, count, ncount, loops, HOT_LOOPS);
    size_t nf = hot_fns(b, count, ncount, fns, HOT_FNS), i;
    int math = 0;
    struct mc_knob *k;

    for (i = 0; i < b->m->nloop; i++)
        math |= b->m->loop[i].math > 0;
    interchange_knobs(b);
    scalar_knobs(b);
    jam_knobs(b);
    if (!b->user_o3)
        opt_knob(b, "O3", "more aggressive vectorization, unrolling and "
                          "inlining", 0);
    if (b->family == MC_CC_GCC && b->arch[0]) {
        char label[80];
        snprintf(label, sizeof(label), "arch=%s", b->arch);
        add_knob(b, MC_KK_ISA, label, NULL,
                 "this machine's wider vector instructions");
        /* Outputs compared exactly: the same with a*b+c rounded twice,
         * as the original rounds it, since the target's fused
         * multiply-add changes the digits (builtin.h). Risk 1: where the
         * user's flags contract already, it is what changes them. */
        if (!b->fast_math_ok &&
            (k = add_knob(b, MC_KK_EXACT, "fp-contract=off",
                          "fp-contract=off",
                          "this machine's vector instructions, with the "
                          "original's rounding")) != NULL)
            k->risk = 1;
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
    block_knobs(b);
    fuse_knobs(b);
}
