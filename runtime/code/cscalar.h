/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cscalar.h: where scalar replacement is sure to be right, read from a
 * blanked text (ctext.h) and its model (cmodel.h) without a compiler.
 * An element of an array that an innermost loop reads or updates at a
 * subscript that does not change in the loop may live in a local for
 * the loop's run: read once before it, written once after it when the
 * loop writes it. The built-in proposer renders the rewrite
 * (builtin_render.c); this module only says where and what.
 *
 * The reading is strict, since a rewrite that the text misled would
 * change results: where it is unsure, no loop qualifies.
 */
#ifndef MC_CSCALAR_H
#define MC_CSCALAR_H

#include <stddef.h>
#include "cmodel.h"

#define MC_CSCALAR_REFS 8   /* elements replaced in one loop, at most */
#define MC_CSCALAR_OCCS 32  /* their occurrences in its body, at most */

struct mc_cscalar_ref {
    size_t at, end;        /* its first occurrence: "X[...]" */
    size_t name_len;       /* the length of X */
    int written;           /* the loop assigns it */
};

struct mc_cscalar {
    size_t semi1, semi2;   /* the two ';' of the loop's header */
    struct mc_cscalar_ref ref[MC_CSCALAR_REFS];
    size_t nref;
    struct {
        size_t at, end;    /* "X[...]" in the body */
    } occ[MC_CSCALAR_OCCS];
    size_t nocc;
    int needs_restrict;    /* only restrict on the function rules out
                            * that other memory the loop touches is the
                            * element */
};

/*
 * Whether scalar replacement applies to loop LOOP of M, built from C (a
 * blanked text of LEN bytes), and how, into S. It does when:
 *
 *   the loop   is innermost, placeable and plain (cmodel.h), its header
 *              `for (INIT; COND; INC)` lies on one line, COND has no
 *              call, assignment, increment or comma, and the header does
 *              not name a replaced array; the body has no jump, call,
 *              condition (if, switch, ?:, &&, ||), sizeof, member access,
 *              unary '*' or '&', and runs straight through: every
 *              replaced element is touched in every iteration; every
 *              name in it is declared in the text (a parameter, a local,
 *              a file-scope scalar), since a macro may hide anything
 *   an element X[E1]...[En]  X is a parameter declared with scalar type
 *              words and n levels of '*' and '[]', that the function
 *              body never declares again; every occurrence of X in the
 *              body is the same text; the subscripts hold only names,
 *              numbers, arithmetic and parentheses, none of them the
 *              loop's variable nor a name that the loop assigns or its
 *              body declares; the loop reads it somewhere (an element
 *              it only stores to is left alone)
 *
 * NEEDS_RESTRICT is set when the loop writes an element and touches
 * other memory than the function's own scalars (locals declared with a
 * type word, not static; parameters passed by value), or reads elements
 * only and writes such memory: the source does not rule out that it is
 * the element. Then every X is a pointer that restrict may qualify
 * (mc_cmodel_object_pointer()). The local for X is "mc_sr_X", which the
 * text must not hold already.
 */
int mc_cscalar_loop(const char *c, size_t len, const struct mc_cmodel *m,
                    int loop, struct mc_cscalar *s);

/* What a loop's body touches (mc_cscalar_body()). */
struct mc_cscalar_body {
    size_t base[MC_CSCALAR_OCCS], end[MC_CSCALAR_OCCS]; /* "X[...]" */
    int written[MC_CSCALAR_OCCS];
    int stored[MC_CSCALAR_OCCS]; /* the target of a plain '=' */
    size_t n;
    int other_read;        /* a name that is no local scalar, read */
    int other_write;       /* such a name, assigned */
    int bad;               /* something the reading cannot follow */
};

/*
 * The elements and names of loop LOOP's body, read as mc_cscalar_loop()
 * reads them, into SC (for another rewrite's reading, cblock.h): 1 when
 * the body has none of what the contract above refuses (a jump, call,
 * condition, sizeof, member access, unary '*' or '&', a name declared
 * nowhere) and its function no volatile; the function's own scalars
 * (its locals and its parameters passed by value) count as neither
 * read nor written.
 */
int mc_cscalar_body(const char *c, const struct mc_cmodel *m, int loop,
                    struct mc_cscalar_body *sc);

/* The same for C[FROM, TO), a part of loop LOOP's body (the
 * statements around an inner loop), read as a part of LOOP. */
int mc_cscalar_part(const char *c, const struct mc_cmodel *m, int loop,
                    size_t from, size_t to, struct mc_cscalar_body *sc);

/*
 * The levels of '*' and "[]" of the parameter of F that declares the
 * name C[W, W+N) with scalar type words only, its declaration into
 * [*FROM, *TO); -1 when no parameter declares it so or F's body
 * declares the name again.
 */
int mc_cscalar_param(const char *c, const struct mc_cfunc *f, size_t w,
                     size_t n, size_t *from, size_t *to);

/* Whether C[A, AE) and C[B, BE) read the same, blanks aside. */
int mc_cscalar_same_text(const char *c, size_t a, size_t ae, size_t b,
                         size_t be);

/* The next statement of C[*S, TO) that ends in ';': where it starts
 * (past blanks) into *S, its ';' into *E. 1 when there is one, 0 when
 * only blanks and empty statements are left, -1 when a brace comes
 * first or the last statement has no ';'. */
int mc_cscalar_statement(const char *c, size_t to, size_t *s, size_t *e);

/* The offset just past the assignment operator at C[I] (=, +=, -=, *=,
 * /=), or 0 when there is none. */
size_t mc_cscalar_assign_op(const char *c, size_t i);

/* Whether the expression C[FROM, TO) may be read once more: no call,
 * assignment, increment or comma. */
int mc_cscalar_pure(const char *c, size_t from, size_t to);

#endif /* MC_CSCALAR_H */
