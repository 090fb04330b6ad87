/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cjam.h: where unroll-and-jam (register blocking) is sure to be right,
 * read from a blanked text (ctext.h) and its model (cmodel.h) without a
 * compiler, and the text of the rewrite. The built-in proposer offers
 * it (builtin_knobs.c) and places it (builtin_render.c).
 *
 * Unroll-and-jam runs U iterations of an outer loop together: their
 * statements before the inner loop, then one run of the inner loop whose
 * body holds the U bodies one after the other, then their statements
 * after it. A sum that each outer iteration keeps in a local of its own
 * becomes U independent sums (the processor overlaps them, where one
 * waited on its own last addition), and an element that the U bodies
 * share is loaded once. Each element's updates keep their order: the
 * rewrite is taken only where no element is updated by two outer
 * iterations at two different inner iterations (below), so no sum is
 * reassociated and the results are the original's bits.
 *
 *     for (int V = LO; V < HI; V++) { PRE  for (...) BODY  POST }
 *
 * becomes, with the original loop left as it was for the remaining
 * iterations (fewer than U):
 *
 *     { int V = LO; for (; (long long)V + U-1 < (HI); V += U) {
 *         PRE_0 ... PRE_U-1  for (...) { BODY_0 ... BODY_U-1 }
 *         POST_0 ... POST_U-1 }
 *       for (; V < HI; V++) { PRE  for (...) BODY  POST } }
 *
 * where copy K reads V as (V + K) and its locals as mc_ujK_NAME. The
 * copies sit on the outer loop's line, so every later line keeps its
 * number. The reading is strict: where it is unsure, no nest qualifies.
 */
#ifndef MC_CJAM_H
#define MC_CJAM_H

#include <stddef.h>
#include "buf.h"
#include "cblock.h"
#include "cmodel.h"

#define MC_CJAM_LOCALS 8 /* locals declared before the inner loop, most */

struct mc_cjam {
    int outer, inner;      /* the loops, indices of the model */
    struct mc_cbound ob;   /* the outer loop's header */
    size_t pre, pre_end;   /* the statements before the inner loop */
    size_t post, post_end; /* and after it (empty ranges: none) */
    size_t body, body_end; /* the inner loop's statements */
    struct {
        size_t at, n; /* a local's name */
    } local[MC_CJAM_LOCALS];
    size_t nlocal;
    int needs_restrict; /* only restrict on the function rules out
                         * that an element the nest writes is
                         * other memory it touches */
};

/*
 * Whether unroll-and-jam applies to INNER, an innermost loop of M built
 * from C (a blanked text of LEN bytes), and its parent, into J. It does
 * when:
 *
 *   the loops  both plain (cmodel.h), each header on one line and
 *              reading `for (int V = LO; V < HI; V++)` (or <=, or ++V);
 *              the outer's LO and HI hold decimal numbers, '+', '-',
 *              '*', parentheses, names of `int` parameters and the
 *              variables of the loops around it; the inner header names
 *              neither V nor a local of the outer body
 *   the parts  the outer body is the inner loop alone, or a block of
 *              statements before it (PRE), the loop and statements
 *              after it (POST); PRE holds declarations of scalar locals
 *              with an initializer (`double s = 0.0;`, one name each)
 *              and assignments, the inner body and POST assignments
 *              only: `X[S]... OP EXPR;` or `L OP EXPR;` with L such a
 *              local, OP one of =, +=, -=, *=, /=, nothing else
 *              assigned or incremented, and each part read as scalar
 *              replacement reads a loop's body (cscalar.h: no jump,
 *              call, condition, member, unary '*' or '&', no name
 *              declared nowhere)
 *   the writes each array X the nest writes is a parameter, named with
 *              the same subscripts everywhere in the nest, none of which
 *              names a local; and either one subscript is V or `T + V`
 *              (T naming neither V, the inner variable W nor a local:
 *              distinct outer iterations write distinct elements), or
 *              none names V, X appears in the inner body only, and one
 *              subscript is W or `T + W` (an element is updated by the
 *              outer iterations in their order, at one inner iteration)
 *
 * NEEDS_RESTRICT is set when the nest writes an element and touches
 * other memory too; every X is then a pointer that restrict may
 * qualify (mc_cmodel_object_pointer()). The text holds no "mc_uj".
 */
int mc_cjam_nest(const char *c, size_t len, const struct mc_cmodel *m,
                 int inner, struct mc_cjam *j);

/*
 * The text that goes before the outer loop's keyword for unroll-and-jam
 * by U (2 or more) into OUT, on one line, from C (the blanked text J was
 * read from; comments are left out): the opening '{', the declaration
 * of V and the loop of the U copies. The caller deletes "int V = LO"
 * from the original header (J->ob.init to J->ob.init_end) and closes
 * the block after the outer loop. PRAGMAS (or NULL), each with a blank
 * before it, go right before the copied inner loop, on the same line
 * (_Pragma operators).
 */
void mc_cjam_text(const char *c, const struct mc_cmodel *m,
                  const struct mc_cjam *j, int u, const char *pragmas,
                  struct mc_buf *out);

#endif /* MC_CJAM_H */
