/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * builtin_seeds.c: the built-in proposer's seeds for host code
 * (builtin.h): the first knob sets it proposes from the original, from
 * the table builtin_knobs.c built.
 */
#include "mc_setup.h"
#include "builtin.h"

/* O with each of the N knobs NEXT into B's seeds, those that won more
 * often in this cache first. */
static void
gcc_next_seeds(struct mc_builtin *b, unsigned long o, const char *const *next,
               size_t n)
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
        b->seeds[b->nseeds++] = o | mc_builtin_bit(b, next[pick]);
        done++;
    }
}

/* The index of B's first knob of KIND, or -1: any (OP -1), one whose op
 * is 0 (OP 0) or one whose op is set (OP 1: a rewrite that needs
 * restrict). */
static int
first_knob(const struct mc_builtin *b, enum mc_knob_kind kind, int op)
{
    size_t i;

    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == kind && (op < 0 || !b->knob[i].op == !op))
            return (int)i;
    return -1;
}

/* O with knob K (none when K is -1) into B's seeds, while there is room. */
static void
seed_with(struct mc_builtin *b, unsigned long o, int k)
{
    if (k >= 0 && b->nseeds < MC_ARRAY_SIZE(b->seeds))
        b->seeds[b->nseeds++] = o | 1ul << k;
}

/* The seeds for host code: a bundle of what the evidence supports, then
 * the usual first steps. */
void
mc_builtin_host_seeds(struct mc_builtin *b)
{
    static const char *const gcc_next[] = {"unroll-loops",
                                           "vect-cost-model=unlimited",
                                           "unroll(8)",
                                           "loop-nest-optimize",
                                           "fast-math",
                                           "ivdep",
                                           "tree-loop-distribution"};
    static const char *const clang_next[] = {"vectorize", "unroll(8)", "ivdep",
                                             "unroll(4)"};
    unsigned long o = mc_builtin_bit(b, "O3"), x = 0, bundle, jam;
    size_t i;
    int k;

    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_ISA)
            o |= 1ul << i;
        else if (b->knob[i].kind == MC_KK_EXACT)
            x |= 1ul << i;
    bundle = o | mc_builtin_bit(b, "no-math-errno") |
             mc_builtin_bit(b, "expect") | mc_builtin_bit(b, "hot-cold");
    for (i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_INTERCHANGE ||
            (b->knob[i].kind == MC_KK_SCALAR && !b->knob[i].op))
            bundle |= 1ul << i;
    if (b->family == MC_CC_CLANG)
        bundle |= mc_builtin_bit(b, "vectorize");
    /* arch= with fp-contract=off first, then alone: the pair gives the
     * original's digits, the single may be faster where it does too;
     * the later seeds take the pair only. */
    if (x)
        b->seeds[b->nseeds++] = bundle | x;
    b->seeds[b->nseeds++] = bundle;
    /* restrict: the first rewrite that needs it where there is one (it
     * brings restrict along), else restrict alone; then blocking with
     * the tile size the caches favour: both among the first four, which
     * a round of cuda-llm takes, with or without the arch pair ahead of
     * them (the plain O3 seeds come after them). With no-math-errno
     * where the code calls a math function: a loop that calls sqrt is
     * kept scalar by errno as much as by aliasing: neither knob alone
     * vectorizes it, and the climb, one knob at a time from the best,
     * may not reach the pair within the budget (nbody). */
    k = first_knob(b, MC_KK_SCALAR, 1);
    seed_with(b, o | x | mc_builtin_bit(b, "no-math-errno"),
              k >= 0 ? k : first_knob(b, MC_KK_RESTRICT, -1));
    /* A sweep's fusion with its copy-back (it brings restrict along),
     * where there is one. */
    seed_with(b, o | x, first_knob(b, MC_KK_FUSE, -1));
    seed_with(b, o | x, first_knob(b, MC_KK_BLOCK, -1));
    /* Unroll-and-jam 4 times, of every nest that takes it (each nest's
     * knobs form a group of their own): one seed. */
    for (jam = 0, i = 0; i < b->nknobs; i++)
        if (b->knob[i].kind == MC_KK_JAM && b->knob[i].n == 4)
            jam |= 1ul << i;
    if (jam && b->nseeds < MC_ARRAY_SIZE(b->seeds))
        b->seeds[b->nseeds++] = o | x | jam;
    if (x)
        b->seeds[b->nseeds++] = o | x;
    b->seeds[b->nseeds++] = o;
    o |= x;
    if (b->family == MC_CC_CLANG)
        for (i = 0; i < MC_ARRAY_SIZE(clang_next); i++)
            b->seeds[b->nseeds++] = mc_builtin_bit(b, clang_next[i]);
    else
        gcc_next_seeds(b, o, gcc_next, MC_ARRAY_SIZE(gcc_next));
}
