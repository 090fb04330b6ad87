/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin.h: the built-in proposer (proposer=builtin), which needs no
 * model. It writes variants that the user's unchanged recipe applies:
 * directives and small rewrites inside the source (DESIGN 1.2).
 *
 * Its knobs form a table built per target (at most 64, one bit each of
 * a node's tag), from the code (cmodel.h), the profile of the original
 * on the user's inputs (eval.h: a gcov build, GCC only), the options and
 * what the compiler accepts (ccprobe.h, once per compiler identity):
 *
 *   file      #pragma GCC optimize ("O3", "unroll-loops", ...) at the top
 *             of the file (or of each fenced region, between push_options
 *             and pop_options): O3 (unless the flags say -O3 or -Ofast),
 *             unroll-loops, vect-cost-model=unlimited,
 *             loop-unroll-and-jam, tree-loop-distribution, no-math-errno
 *             (where loops call <math.h> functions), loop-nest-optimize
 *             and graphite-identity (GCC's polyhedral optimizer), ipa-pta,
 *             prefetch-loop-arrays, split-loops, unswitch-loops,
 *             peel-loops; with a tolerance only: no-trapping-math and
 *             fast-math; with isa=native only: #pragma GCC target
 *             ("arch=...") (the machine's -march, resolved once), and
 *             where outputs compare exactly (no tolerance) the same
 *             paired with fp-contract=off, tried first: the target's
 *             fused multiply-add rounds a*b+c once where the original
 *             rounds twice, and GCC contracts by default outside ISO
 *             mode, so arch= alone changes printed digits
 *   loop      #pragma GCC unroll N, #pragma GCC ivdep (clang: #pragma
 *             clang loop vectorize(assume_safety)), #pragma clang loop
 *             vectorize(enable) interleave(enable), #pragma GCC novector
 *             (GCC 14) or clang loop vectorize(disable): before every
 *             innermost loop, or before one hot loop (LABEL@LN, N its
 *             line); with a profile, unroll(T)@LN for a loop whose trip
 *             count T is small
 *   function  __attribute__((optimize("O3"))) and ("unroll-loops") on one
 *             hot function (LABEL@NAME), flatten on one that calls
 *   profile   expect: __builtin_expect(!!(COND), D) on each branch that
 *             the profile shows taken in over 98% or under 2% of its
 *             evaluations (at least 100); hot-cold: hot on the functions
 *             that run most of the lines, cold on those that never ran
 *   rewrites  interchange(J,K)@LN: a loop nest whose innermost loop walks
 *             memory with a stride while the loop around it would walk it
 *             with unit stride is reordered (the statements before the
 *             inner loop, if any, keep a copy of the outer loop of their
 *             own); scalar@LN: an element that innermost loop LN reads
 *             or updates at a subscript the loop does not change lives
 *             in a local for the loop's run (read before it, written
 *             after it, neither when it runs zero times; cscalar.h),
 *             scalar-restrict@LN the same where only __restrict on its
 *             function rules out aliasing, which it adds;
 *             blockT(J,K)@LN: the perfect nest of innermost loop LN is
 *             blocked, loops J and K strip-mined with tiles of T (16,
 *             32, 64, 128, ordered by the nest's footprint against the
 *             caches), each element's sum kept in its order (cblock.h),
 *             with __restrict on its function where other arrays are
 *             read; jamU(V)@LN: outer loop V (on line LN) of an
 *             innermost loop unrolled U times (4, 2) and jammed, U
 *             iterations' sums kept apart in one run of the inner loop,
 *             each element's updates in their order (cjam.h), with
 *             __restrict where other memory is touched;
 *             fuse(Y)@LN: the nest that copies V back into U after a
 *             sweep (outer loop Y on line LN) that computes V from U
 *             joins the sweep, each row copied as soon as no later row
 *             reads it (cfuse.h), with __restrict;
 *             restrict@NAME: __restrict on the pointer parameters
 *             of a hot function. A rewrite is justified only by the
 *             user's tests, as every variant is: it is judged with the
 *             sanitizers besides the differential runs, whatever
 *             sanitize= says
 *   nvcc      inside kernels (the __global__ functions; with kernel=NAME,
 *             that one only, so nothing outside its span changes):
 *             unroll(4), unroll(8)   #pragma unroll N before innermost loops
 *             launch_bounds(256,2), launch_bounds(1024,1)
 *                                    __launch_bounds__(T, B) before the
 *                                    kernel's name, unless it has one
 *             restrict               __restrict__ on each pointer
 *                                    parameter that lacks it
 *             fast-intrinsics        expf( -> __expf(, and logf, sinf,
 *                                    cosf, powf, tanf, exp10f, log2f,
 *                                    log10f (with a tolerance only)
 *
 * Each line inserted is followed by a #line directive, so compiler
 * messages keep pointing at SOURCE's lines; insertions within a line add
 * none. A knob that would change nothing in the text is never in the
 * table; nor is one whose directive the compiler rejects or ignores.
 *
 * The table's order is the policy: rewrites that the code's subscripts
 * call for first, then the knobs the profile or the code supports (hot
 * loops first, loops with floating-point math and calls), then the
 * general ones, riskiest last; blocking after all of them, so that a
 * full table keeps what it had (its first knob is a seed of its own).
 * Seeds come first, the first of them a bundle of everything the
 * evidence supports; then hill-climbing from
 * the best correct variant adds one knob at a time. With a value model
 * (PRIOR: strategy=gvf with the built-in model, value.h), the seeds and
 * the sets one knob away are tried in the order of its prior instead. Knobs that failed to
 * compile are never used again, knobs blamed for wrong output are
 * dropped, knobs that made things slower are not added again to the
 * same base, and a knob set whose code repeats a judged one's is passed
 * over for the next (proposer_builtin.c: never judged twice). Its critique is a short rule-based diagnosis of what
 * changed and why it likely helped or hurt.
 */
#ifndef MC_BUILTIN_H
#define MC_BUILTIN_H

#include "buf.h"
#include "status.h"
#include "target.h"

/* What the proposer, the strategy and the ranker see of one evaluated
 * node: a plain record, no code, no compiler. */
struct mc_prop_node {
    int parent;            /* index, or -1 for the original */
    unsigned long tag;     /* the proposer's own note: the knob set */
    int evaluated;         /* has a verdict */
    int correct;
    int compile_error;
    double speedup;        /* confirmed, or the measured median */
    double reward;         /* the search's reward (ranker.h ranks by it) */
    double value;          /* the value model's expected bin, or -1 */
};

#define MC_KNOBS_MAX 64

enum mc_knob_kind {
    MC_KK_OPT,          /* #pragma GCC optimize option OPT */
    MC_KK_ISA,          /* #pragma GCC target ("arch=...") */
    MC_KK_EXACT,        /* fp-contract=off, only beside MC_KK_ISA */
    MC_KK_LOOP,         /* a loop pragma (OP), before loop WHERE or all */
    MC_KK_FNOPT,        /* optimize(OPT) on function WHERE */
    MC_KK_FNATTR,       /* the attribute OPT on function WHERE */
    MC_KK_HOTCOLD,      /* hot and cold attributes from the profile */
    MC_KK_EXPECT,       /* __builtin_expect from the profile */
    MC_KK_RESTRICT,     /* __restrict on function WHERE's pointers */
    MC_KK_INTERCHANGE,  /* loop WHERE and its parent swapped */
    MC_KK_SCALAR,       /* scalar replacement in loop WHERE; OP 1: with
                         * __restrict on its function's pointers */
    MC_KK_CUDA,         /* a kernel-level edit (OP) */
    MC_KK_BLOCK,        /* the nest of innermost loop WHERE blocked with
                         * tiles of N; OP 1: with __restrict on its
                         * function's pointers */
    MC_KK_JAM,          /* innermost loop WHERE's parent unrolled N
                         * times and jammed; OP 1: with __restrict */
    MC_KK_FUSE          /* the copy-back after the sweep of innermost
                         * loop WHERE fused into it with a lag; OP 1:
                         * with __restrict (always) */
};

struct mc_knob {
    unsigned char kind;
    unsigned char op;      /* the loop pragma or kernel edit */
    short where;           /* a loop or function index, or -1: all */
    short group;           /* one knob at most of a nonzero group */
    short n;               /* the unroll count */
    unsigned char rewrite; /* changes code, not only directives */
    unsigned char risk;    /* 0-2: blamed first when output is wrong */
    unsigned char general; /* needs no evidence: ordered by past wins */
    unsigned wins;         /* kept variants of this cache that had it */
    char label[48];
    const char *opt;       /* the option or attribute text, or NULL */
    const char *why;       /* what it does, for the critique */
};

struct mc_cmodel;

struct mc_builtin {
    enum { MC_CC_GCC, MC_CC_CLANG, MC_CC_NVCC } family;
    int fast_math_ok;      /* the target has a tolerance */
    int user_o3;           /* the flags say -O3 or -Ofast */
    char arch[64];         /* isa=native: -march the machine has, or "" */
    char kernel[128];      /* kernel=NAME, or "": all kernels */
    struct mc_knob knob[MC_KNOBS_MAX]; /* the table; bit I is knob[I] */
    size_t nknobs;
    unsigned long seeds[16]; /* the first knob sets from the original */
    size_t nseeds;
    /* The value model's prior (value.h), or NULL: the value of a child
     * of node PARENT (-1: the original) with knob set TAG. Set, the
     * climb adds one knob in its order. */
    double (*prior)(void *arg, int parent, unsigned long tag);
    void *prior_arg;
    unsigned long banned;  /* knobs that failed to compile */
    unsigned long blamed;  /* knobs blamed for wrong output */
    int exact;             /* arch= alone changed the output: from now
                            * it goes with fp-contract=off */
    unsigned long *avoid;  /* knob sets not to propose again (owned):
                            * their code was a judged node's or a
                            * proposal's (mc_builtin_avoid()) */
    size_t navoid, avoid_cap;
    const unsigned long *pending; /* chosen for the current run of a
                            * plan's slots already (proposer_builtin.c;
                            * not owned), NPENDING of them */
    size_t npending;
    /* What the table was built from (owned): */
    char *blank;           /* the original, blanked (ctext.h) */
    size_t len;
    struct mc_cmodel *m;   /* its model, or NULL (CUDA) */
    unsigned char *ok;     /* ok[LINE]: the line may change (fences) */
    signed char *expect;   /* per branch of M: -1, or the expected 0/1 */
    unsigned char *heat;   /* per function of M: 1 hot, 2 cold, 0 */
};

/*
 * Set B up for target T, whose original is TEXT (LEN bytes): the
 * compiler family (from `CC --version`, run once; nvcc for CUDA), what
 * the options allow, what the compiler accepts (probed once per
 * identity), and the knob table from TEXT and, unless COUNT is NULL, the
 * profile: COUNT[L] executions of line L (1..NCOUNT-1; negative: no code
 * there). TEXT and COUNT are only read during the call; every render
 * must be of the same TEXT. Release B with mc_builtin_release(), also
 * after a failure. MC_EINVAL for a compiler command that does not split
 * or a kernel name that is too long, MC_ENOMEM.
 */
enum mc_code mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                             const char *text, size_t len,
                             const double *count, size_t ncount,
                             struct mc_err *err);
void mc_builtin_release(struct mc_builtin *b);

/*
 * Remember in CACHE_DIR that a search kept a variant with the knobs of
 * TAG: the next tables put the general knobs that won more often first.
 *   CACHE_DIR/builtin-wins = *( STEM SP COUNT LF )
 * STEM is what a knob is, not where ("unroll(8)@loop", "O3@function",
 * "interchange"). Best effort: a failure to write is ignored, and two
 * searches that write at once may lose one count.
 */
void mc_builtin_remember(const struct mc_builtin *b, unsigned long tag,
                         const char *cache_dir);

/* The index of the knob labelled LABEL in B's table, or -1. */
int mc_builtin_knob(const struct mc_builtin *b, const char *label);

/* The bit of the knob labelled LABEL in B's table, or 0. */
unsigned long mc_builtin_bit(const struct mc_builtin *b, const char *label);

/* Internal, for builtin.c: which lines (1-based) of TEXT may change
 * into OK[1..NLINES]: those inside the fences, or all. */
void mc_builtin_fences(const char *text, size_t len, unsigned char *ok,
                       size_t nlines);

/*
 * Internal, for builtin.c: the table (builtin_knobs.c) and the seeds
 * for host code (builtin_seeds.c). The knobs for
 * host code, in the policy's order, from B's model and, unless COUNT is
 * NULL, the profile (as mc_builtin_init() takes it); the knobs for CUDA
 * kernels. The seeds of each, from the table as it was kept.
 */
void mc_builtin_host_table(struct mc_builtin *b, const double *count,
                           size_t ncount);
void mc_builtin_host_seeds(struct mc_builtin *b);
void mc_builtin_cuda_table(struct mc_builtin *b);
void mc_builtin_cuda_seeds(struct mc_builtin *b);
/* Internal: drop from B's table the knobs whose bit is clear in KEEP. */
void mc_builtin_compact(struct mc_builtin *b, unsigned long keep);
/* Internal: the knobs of B that T's compiler accepts, probed (once per
 * identity), as a set of bits. */
unsigned long mc_builtin_accepted(struct mc_builtin *b,
                                  const struct mc_target *t);
/* Internal: the knobs of B that change TEXT (LEN bytes) at all, into
 * *KEEP: rendered alone, each differs from TEXT rendered with no knob.
 * MC_ENOMEM. */
enum mc_code mc_builtin_applicable(struct mc_builtin *b, const char *text,
                                   size_t len, unsigned long *keep);

/*
 * Never propose TAG again in this search: its code repeats a judged
 * node's or a proposal's (proposer_builtin.c takes that verdict for it,
 * and proposes another). MC_ENOMEM.
 */
enum mc_code mc_builtin_avoid(struct mc_builtin *b, unsigned long tag);

/* Whether TAG holds a rewrite (judged with the sanitizers). */
int mc_builtin_rewrites(const struct mc_builtin *b, unsigned long tag);

/*
 * Choose up to K new knob sets to try from node PARENT (-1: the
 * original) among the N nodes so far, into TAGS (*NTAGS of them; fewer
 * when the space is exhausted). REPAIR asks for fixes of PARENT, which
 * failed, rather than improvements.
 */
void mc_builtin_choose(struct mc_builtin *b, const struct mc_prop_node *nodes,
                       size_t n, int parent, size_t k, int repair,
                       unsigned long *tags, size_t *ntags);

/* The variant of ORIG (LEN bytes) with knob set TAG, into OUT. */
enum mc_code mc_builtin_render(const struct mc_builtin *b, unsigned long tag,
                               const char *orig, size_t len,
                               struct mc_buf *out);

/* "O3+unroll-loops+unroll(8)@L12": the knobs of TAG, into OUT. */
void mc_builtin_label(const struct mc_builtin *b, unsigned long tag,
                      struct mc_buf *out);

/* Learn from node I's verdict (bans and blame), and write its critique
 * against its parent into OUT. */
void mc_builtin_learn(struct mc_builtin *b, const struct mc_prop_node *nodes,
                      size_t i, const char *detail, struct mc_buf *out);

#endif /* MC_BUILTIN_H */
