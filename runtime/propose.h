/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * propose.h: proposers, the policies that write candidate variants.
 *
 * The built-in proposer (proposer=builtin) needs no model. It writes
 * compiler-guided variants: directives inside the source, so that the
 * user's unchanged recipe applies them (DESIGN 1.2):
 *   GCC    #pragma GCC optimize ("O3", "unroll-loops", ...) and
 *          #pragma GCC target ("arch=...") at the top of the file (or of
 *          each fenced region, between push_options and pop_options);
 *          #pragma GCC unroll N / #pragma GCC ivdep before innermost loops
 *   clang  #pragma GCC unroll N and #pragma clang loop vectorize(enable)
 *          / vectorize(assume_safety) before innermost loops (clang has
 *          no per-file optimization pragma)
 *   nvcc   inside kernels (the __global__ functions; with kernel=NAME,
 *          that one only, so nothing outside its span changes):
 *          unroll(4), unroll(8)   #pragma unroll N before innermost loops
 *          launch_bounds(256,2), launch_bounds(1024,1)
 *                                 __launch_bounds__(T, B) before the
 *                                 kernel's name, unless it has one
 *          restrict               __restrict__ on each pointer parameter
 *                                 that lacks it
 *          fast-intrinsics        expf( -> __expf(, and logf, sinf, cosf,
 *                                 powf, tanf, exp10f, log2f, log10f
 * Each line inserted is followed by a #line directive, so compiler
 * messages keep pointing at SOURCE's lines; the CUDA insertions within a
 * line add none. Fast-math and fast intrinsics are proposed only when the
 * target has a tolerance; ISA extensions only with isa=native (the
 * machine's -march, resolved once), never beyond the user's flags
 * otherwise. A CUDA knob that would change nothing in the text (no loop,
 * no kernel, no pointer parameter, no math call in scope) is never
 * proposed.
 *
 * It is a policy: seeds first, in an order that usually pays, then
 * hill-climbing from the best correct variant by adding one knob at a
 * time. Knobs that failed to compile are never used again, knobs blamed
 * for wrong output are dropped, knobs that made things slower are not
 * added again to the same base. Its critique is a short rule-based
 * diagnosis of what changed and why it likely helped or hurt.
 */
#ifndef MC_PROPOSE_H
#define MC_PROPOSE_H

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
};

struct mc_builtin {
    enum { MC_CC_GCC, MC_CC_CLANG, MC_CC_NVCC } family;
    int fast_math_ok;      /* the target has a tolerance */
    char arch[64];         /* isa=native: -march the machine has, or "" */
    char kernel[128];      /* kernel=NAME, or "": all kernels */
    unsigned long applicable; /* knobs that change the text at all */
    unsigned long banned;  /* knobs that failed to compile */
    unsigned long blamed;  /* knobs blamed for wrong output */
};

/*
 * Set B up for target T, whose original is TEXT (LEN bytes): the
 * compiler family (from `CC --version`, run once; nvcc for CUDA), what
 * the options allow, and for CUDA which knobs have a place to apply in
 * TEXT. TEXT is only read during the call. MC_EINVAL for a compiler
 * command that does not split or a kernel name that is too long,
 * MC_ENOMEM.
 */
enum mc_code mc_builtin_init(struct mc_builtin *b, const struct mc_target *t,
                             const char *text, size_t len,
                             struct mc_err *err);

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

/* "O3+unroll-loops+unroll(8)": the knobs of TAG, into OUT. */
void mc_builtin_label(const struct mc_builtin *b, unsigned long tag,
                      struct mc_buf *out);

/* Learn from node I's verdict (bans and blame), and write its critique
 * against its parent into OUT. */
void mc_builtin_learn(struct mc_builtin *b, const struct mc_prop_node *nodes,
                      size_t i, const char *detail, struct mc_buf *out);

#endif /* MC_PROPOSE_H */
