/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ctext.h: reading C, C++ and CUDA source as code, without a compiler:
 * a copy with comments, literals and preprocessor lines blanked, whole
 * words, the extent of a statement, and the CUDA kernels (__global__
 * functions) with their parts. The built-in proposer finds loops and
 * kernels with it; kernel= fences the named kernel with it.
 *
 * A kernel is found by the word __global__ followed, before the next
 * ';' or '{', by an identifier and a '(' : the last identifier before
 * the first '(' is its name. Its span runs from the start of the line
 * where its declaration starts (a `template <...>` line right before
 * the __global__ line belongs to it) to just past the '}' that closes
 * its body. Declarations without a body are not kernels here.
 */
#ifndef MC_CTEXT_H
#define MC_CTEXT_H

#include <stddef.h>
#include "status.h"

/* A copy of TEXT (LEN bytes) in which comments, string and character
 * literals and preprocessor lines are blanks (newlines kept), NUL
 * terminated; NULL when out of memory. Free it with mc_free(). */
char *mc_ctext_blank(const char *text, size_t len);

/* Whether the whole word W starts at C[I] (C has LEN bytes). */
int mc_ctext_word_at(const char *c, size_t len, size_t i, const char *w);

/* The length of the name that starts at C[W], 0 for a number or no
 * name (C ends in a byte that is no letter, digit or '_'). */
size_t mc_ctext_name_len(const char *c, size_t w);

/* The offset just past the bracket that closes the OPEN at C[I] (C has
 * LEN bytes), or LEN when it is not closed. */
size_t mc_ctext_match(const char *c, size_t len, size_t i, char open,
                      char close);

/* The line (1-based) holding offset OFF, given where each of the NLINES
 * lines starts (LINE_OFF[1..NLINES], ascending). */
size_t mc_ctext_line(const size_t *line_off, size_t nlines, size_t off);

/* The offset past the statement or block that starts at or after I. */
size_t mc_ctext_skip_statement(const char *c, size_t len, size_t i);

/*
 * The preprocessor conditionals of a text, line by line (1..NLINES):
 * GROUP[L] is the branch of a conditional that line L is in (0: none;
 * every branch of every conditional has a number of its own, so two
 * lines are compiled together when their numbers are equal), and
 * DIRECTIVE[L] whether line L is (part of) a directive, its
 * continuation lines included: 2 for the first line of a #pragma, 1
 * for the others. TANGLED says that the conditionals or
 * the braces of the kept text (below) do not nest: a reading of the
 * code's structure is then unsure.
 */
struct mc_ctext_pp {
    unsigned *group;
    unsigned char *directive;
    size_t nlines;
    int tangled;
};

#define MC_CTEXT_PP_INIT {NULL, NULL, 0, 0}

/*
 * Read the conditionals of TEXT (LEN bytes) into PP, and blank in C
 * (its blanked copy, mc_ctext_blank()) every branch of each conditional
 * but one: the first, or the first after branches that test a plain 0
 * (`#if 0`, `#elif 0`). C then reads as one configuration of the code,
 * where a brace that two branches open, one each, opens once. Release
 * PP with mc_ctext_pp_release(), also after a failure. MC_ENOMEM.
 */
enum mc_code mc_ctext_pp(const char *text, size_t len, char *c,
                         struct mc_ctext_pp *pp);
void mc_ctext_pp_release(struct mc_ctext_pp *pp);

struct mc_kernel {
    size_t start;          /* the start of its first line */
    size_t global;         /* the offset of "__global__" */
    size_t name, name_len; /* its name */
    size_t params;         /* the '(' of its parameter list */
    size_t params_end;     /* just past the matching ')' */
    size_t body;           /* its body's '{' */
    size_t end;            /* just past the '}' closing the body */
};

/*
 * The kernels defined in C (a blanked text of LEN bytes, from
 * mc_ctext_blank()), in order, into OUT (at most MAX); returns how many
 * there are (which may exceed MAX).
 */
size_t mc_ctext_kernels(const char *c, size_t len, struct mc_kernel *out,
                        size_t max);

/* The kernel called NAME in C into *K: 1 when found, else 0. */
int mc_ctext_kernel(const char *c, size_t len, const char *name,
                    struct mc_kernel *k);

#endif /* MC_CTEXT_H */
