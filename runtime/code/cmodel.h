/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmodel.h: a structural model of a C or C++ source for the built-in
 * proposer, read from the blanked text (ctext.h) without a compiler:
 *
 *   functions  definitions at file scope (or inside namespace and
 *              extern "C" blocks): the '{' of a body whose text before
 *              it ends in ')' (then optionally const, noexcept,
 *              override, final); class bodies and initializers are
 *              skipped
 *   loops      every `for` inside a function: its header, its body, the
 *              loop that encloses it, whether it is innermost (no loop
 *              keyword in its body), its induction variable when the
 *              header starts `[TYPE] VAR = ...` and the condition names
 *              VAR, and how its body indexes arrays with that variable
 *   branches   every `if (...)` inside a function, with the line where
 *              its then-statement starts when that is a later line (a
 *              line count there tells how often the branch is taken)
 *
 * The model is a reading, not a proof: every variant written from it is
 * judged by the executor like any other (differential runs, sanitizers),
 * and a rewrite that the text misled is rejected there.
 */
#ifndef MC_CMODEL_H
#define MC_CMODEL_H

#include <stddef.h>
#include "buf.h"
#include "status.h"
#include "ctext.h"

struct mc_cfunc {
    size_t start;          /* the start of the declaration's first line */
    size_t name, name_len; /* its name */
    size_t params;         /* '(' of the parameter list */
    size_t params_end;     /* just past its ')' */
    size_t body, end;      /* '{' and just past the closing '}' */
    size_t line, end_line; /* lines (1-based) of START and of the '}' */
    int placeable;         /* an attribute line may go before LINE
                            * (mc_cmodel_place()) */
};

struct mc_cloop {
    size_t kw;             /* offset of "for" */
    size_t line;           /* its line */
    size_t head, head_end; /* '(' and just past the matching ')' */
    size_t body, end;      /* the body's first character, and past it */
    size_t body_line;      /* the line of the body's first character */
    int parent;            /* the enclosing loop, or -1 */
    int fn;                /* the enclosing function */
    int depth;             /* 0: outermost in its function */
    int innermost;         /* no loop keyword in the body */
    int first_on_line;     /* only blanks before the keyword */
    char var[32];          /* the induction variable, or "" */
    int unit, strided;     /* array subscripts using VAR as the last
                            * index alone (unit stride) / elsewhere */
    int pv_unit, pv_strided; /* the same for the parent's variable */
    int math;              /* calls of <math.h> functions in the body */
    int fp;                /* the function uses double or float */
    int placeable;         /* a pragma line may go before LINE
                            * (mc_cmodel_place()) */
    int plain;             /* no directive line from LINE to its end */
    int pragma;            /* the user's #pragma before it, with only
                            * blank lines, comments and other directives
                            * between (omp for, ...): a rewrite of the
                            * loop could break what it says */
};

struct mc_cbranch {
    size_t kw;             /* offset of "if" */
    size_t cond, cond_end; /* '(' and just past the matching ')' */
    size_t line;           /* the line of "if" */
    size_t then_line;      /* the then-statement's first line, or 0 when
                            * it starts on the if's own line */
    int fn;
    int placeable;         /* no directive inside its condition, which
                            * one branch of the conditionals holds
                            * (mc_cmodel_place()) */
};

struct mc_cmodel {
    struct mc_cfunc *fn;
    size_t nfn;
    struct mc_cloop *loop;
    size_t nloop;
    struct mc_cbranch *br;
    size_t nbr;
    size_t *line_off;      /* line_off[L]: offset where line L starts */
    size_t nlines;
};

#define MC_CMODEL_INIT {NULL, 0, NULL, 0, NULL, 0, NULL, 0}

/*
 * Build M from C, a blanked text of LEN bytes (mc_ctext_blank()). C is
 * only read during the call; offsets in M index it (and the original,
 * which has the same length). MC_ENOMEM.
 */
enum mc_code mc_cmodel_build(const char *c, size_t len, struct mc_cmodel *m);
void mc_cmodel_release(struct mc_cmodel *m);

/*
 * Where M's directives may go, given the conditionals PP of the text
 * (mc_ctext_pp(), which blanked C before M was built from it); nothing
 * where PP is tangled or the reading is unsure:
 *
 *   loop      placeable: a pragma line before its keyword's line
 *             starts a statement there: the keyword is first on its
 *             line, the code before it ends a statement or opens one
 *             (';', '{', '}', a label's ':', `else`, `do`, or the ')'
 *             of an if, for, while or switch header); its header has a
 *             condition (GCC takes no pragma on `for (;;)`) and no
 *             directive line, and its keyword, the end of its
 *             header and its end are in one branch of the conditionals
 *   function  placeable: an attribute line before LINE starts its
 *             declaration: START is first on its line, a return type
 *             or specifier comes before the name, nothing between them
 *             but words, '*', '&', '::', '<...>' and the parentheses of
 *             __attribute__ and __declspec; no `template` or string
 *             (extern "C") at START; no directive line from LINE to its
 *             body's '{', and LINE, the '{' and the '}' in one branch
 *   branch    placeable: its condition has no directive line and lies
 *             in one branch
 */
void mc_cmodel_place(struct mc_cmodel *m, const char *c,
                     const struct mc_ctext_pp *pp);

/* The line (1-based) holding offset OFF. */
size_t mc_cmodel_line(const struct mc_cmodel *m, size_t off);

/* The first offset from I on in C (LEN bytes) that is no blank, or
 * LEN. */
size_t mc_cmodel_skip_space(const char *c, size_t len, size_t i);

/* Whether the word W occurs as a whole word in C[FROM, TO). */
int mc_cmodel_has_word(const char *c, size_t from, size_t to, const char *w);

/*
 * Declarations into OUT, for C (not C++), of the <math.h> functions that
 * may set errno and that C (LEN bytes) calls, each with
 * __attribute__((__const__)): `#ifndef __cplusplus`, a line per
 * function (`double sqrt(double) __attribute__((__const__));`),
 * `#endif`; nothing when it calls none. GCC decides whether such a
 * call may set errno when it declares the built-in, from the command
 * line's -fmath-errno: `#pragma GCC optimize ("no-math-errno")` leaves
 * a loop that calls sqrt scalar, while a const declaration of sqrt lets
 * it vectorize with the same values. (C++ declares them noexcept, which
 * a redeclaration would have to match.)
 */
void mc_cmodel_math_decls(const char *c, size_t len, struct mc_buf *out);

/* Whether C[FROM, TO) holds a loop keyword (for, while, do). */
int mc_cmodel_has_loop(const char *c, size_t from, size_t to);

/*
 * Whether the parameter declaration C[FROM, TO) (one parameter of a
 * blanked list, without its comma) is a pointer to an object type that
 * the text C of LEN bytes shows, so that a restrict qualifier after its
 * last '*' is valid: the words before that '*' are C's type keywords
 * and qualifiers, a struct, union or enum tag, a standard typedef
 * (size_t, uint8_t, FILE, ...) or names that a typedef in C declares
 * as an object type; or hold a '*' themselves (a pointer to a pointer).
 * A pointer to a function type (a typedef of one, "(*f)(...)"), a type
 * from a header, a macro, a template or a qualified C++ name give 0:
 * where the reading is unsure, 0.
 */
int mc_cmodel_object_pointer(const char *c, size_t len, size_t from,
                             size_t to);

/*
 * Whether loops OUTER and INNER (indices) form a nest that loop
 * interchange may reorder: INNER is innermost and OUTER's body is INNER
 * alone, or a '{' block holding INNER with statements before it (PRE)
 * and after it (POST) that have no jump, loop, case label or declaration
 * (a statement that starts with a type word, or with two words) and do
 * not name INNER's variable; both have an induction variable, neither
 * header names the other's variable, and INNER's body has no break,
 * continue, return or goto. *PRE is set to where the statements before
 * INNER start (INNER's keyword when there are none), *POST to where
 * those after it start (the block's '}' when there are none), *BLOCK to
 * whether OUTER's body is a block.
 */
int mc_cmodel_nest(const char *c, const struct mc_cmodel *m, int outer,
                   int inner, size_t *pre, size_t *post, int *block);

#endif /* MC_CMODEL_H */
