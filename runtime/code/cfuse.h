/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cfuse.h: where a sweep and the copy-back after it may be fused with a
 * lag, read from a blanked text (ctext.h) and its model (cmodel.h)
 * without a compiler, and the text of the rewrite. The built-in
 * proposer offers it (builtin_knobs.c) and places it
 * (builtin_render.c).
 *
 * A Jacobi sweep computes V row by row from U, then a second nest
 * copies V back into U: every element crosses the memory twice more.
 * Row Y of the sweep reads rows Y - LAG and below no further (LAG from
 * its subscripts), so once row Y is computed, row Y - LAG of U is read
 * by no later row and may take V's values at once, while they are still
 * in the cache:
 *
 *     for (int Y = LO; Y < HI; Y++)
 *         for (int X = L2; X < H2; X++) V[Y * W + X] = EXPR;
 *     for (int Y = LO; Y < HI; Y++)
 *         for (int X = L2; X < H2; X++) U[Y * W + X] = V[Y * W + X];
 *
 * becomes
 *
 *     for (int Y = LO; Y < HI; Y++) {
 *         for (int X = L2; X < H2; X++) V[Y * W + X] = EXPR;
 *         if (Y - LAG >= LO) COPY-NEST'S INNER LOOP, Y as (Y - LAG) }
 *     for (int Y = MAX(HI - LAG, LO); Y < HI; Y++) ... as it was
 *
 * Every element gets the original's value: EXPR reads no element that
 * the copy has replaced yet, and V's rows are final when copied. The
 * additions stay on the lines they join, so no line number moves. The
 * reading is strict: where it is unsure, no nest qualifies.
 */
#ifndef MC_CFUSE_H
#define MC_CFUSE_H

#include <stddef.h>
#include "buf.h"
#include "cblock.h"
#include "cmodel.h"

struct mc_cfuse {
    int sweep, sweep_in; /* the sweep's loops, indices of the model */
    int copy, copy_in;   /* the copy-back's loops */
    struct mc_cbound sb; /* the sweep's outer header */
    struct mc_cbound cb; /* the copy's outer header */
    int lag;             /* rows of U below Y that EXPR reads, most */
};

/*
 * Whether INNER, an innermost loop of M built from C (a blanked text of
 * LEN bytes), is the inner loop of a sweep that a copy-back follows, as
 * above, into F. It is when:
 *
 *   the nests  the sweep and the copy are two loops of one parent (or
 *              of none), the copy right after the sweep; each is plain
 *              (cmodel.h), with an inner loop as its whole body (alone,
 *              or alone in a '{' block); the two outer headers read the
 *              same and so do the two inner ones, each on one line and
 *              `for (int Y = LO; Y < HI; Y++)` (or ++Y); LO and HI hold
 *              what blocking takes (cblock.h: numbers, names of `int`
 *              parameters); the inner LO2 is a decimal number and H2 is
 *              W or `W - K` (K decimal), W an `int` parameter
 *   the sweep  its inner body is one statement `V[Y * W + X] = EXPR;`
 *              read as scalar replacement reads a loop's body
 *              (cscalar.h); EXPR does not name V, and names U only as
 *              `U[S]` with S one of `Y * W + X`, `(Y + C) * W + X`,
 *              `(Y - C) * W + X`, each with `+ D` or `- D` or nothing
 *              after it (C and D decimal)
 *   the copy   its inner body is `U[Y * W + X] = V[Y * W + X];`
 *   the rows   U and V are distinct parameters `T *U` that restrict may
 *              qualify (mc_cmodel_object_pointer()); LAG is the most
 *              that C subtracts (0 when none does), and no D subtracts
 *              more than L2 + K, so no read reaches back into a row
 *              already replaced
 *
 * The rewrite always needs restrict: the function's object pointers
 * get __restrict, as for blocking. The text holds no "mc_" name here.
 */
int mc_cfuse_nest(const char *c, size_t len, const struct mc_cmodel *m,
                  int inner, struct mc_cfuse *f);

/*
 * The text that goes right after the sweep's inner loop into OUT, on
 * one line, from C (the blanked text F was read from): ` if ((long
 * long)Y - LAG >= (LO))` (none when LAG is 0) and the copy's inner loop
 * with Y as (Y - LAG), then " }" when the sweep's body was no block
 * (the caller puts " {" after the sweep's header: mc_cfuse_block()).
 */
void mc_cfuse_text(const char *c, const struct mc_cmodel *m,
                   const struct mc_cfuse *f, struct mc_buf *out);

/* The copy's new LO into OUT: `(int)((long long)(HI) - LAG > (LO) ?
 * (long long)(HI) - LAG : (LO))`, the rows the sweep left to copy. */
void mc_cfuse_copy_lo(const char *c, const struct mc_cfuse *f,
                      struct mc_buf *out);

/* Whether the sweep's outer body is a '{' block already. */
int mc_cfuse_block(const char *c, const struct mc_cmodel *m,
                   const struct mc_cfuse *f);

#endif /* MC_CFUSE_H */
