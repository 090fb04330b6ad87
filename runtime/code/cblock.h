/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cblock.h: where cache blocking (loop tiling) is sure to be right,
 * read from a blanked text (ctext.h) and its model (cmodel.h) without a
 * compiler, and the tile sizes to try, ordered by the nest's footprint
 * against the caches this machine reports. The built-in proposer
 * renders the rewrite (builtin_render.c); this module only says where.
 *
 * Blocking strip-mines loops of a perfect nest and moves the loops over
 * the strips outside the nest. Each output element's updates keep their
 * order: only the loops that index the element, and the outermost of
 * those that do not (the reduction's), are strip-mined. The reading is
 * strict: where it is unsure, no nest qualifies.
 */
#ifndef MC_CBLOCK_H
#define MC_CBLOCK_H

#include <stddef.h>
#include "cmodel.h"

#define MC_CBLOCK_DEPTH 3  /* loops of a nest, at most */
#define MC_CBLOCK_SIZES 4  /* tile sizes tried */

struct mc_cblock {
    int loop[MC_CBLOCK_DEPTH]; /* the nest, outermost first */
    int depth;
    struct {
        size_t lo, lo_end; /* "LO" of `for (int V = LO; V < HI; V++)` */
        size_t hi, hi_end; /* "HI" */
        int tiled;         /* strip-mined */
    } b[MC_CBLOCK_DEPTH];
    int needs_restrict;    /* other memory is read: only restrict on the
                            * function rules out that it is the output */
    int arrays;            /* distinct arrays the body names */
    int elem;              /* bytes of an output element (a guess from
                            * its type words) */
};

/*
 * Whether blocking applies to the nest whose innermost loop is INNER in
 * M, built from C (a blanked text of LEN bytes), and how, into BK. It
 * does when:
 *
 *   the nest   is INNER and the one or two loops around it, each the
 *              whole body of its parent (alone, or alone in a '{'
 *              block); each loop is plain (cmodel.h) and its header,
 *              on one line, reads exactly `for (int V = LO; V < HI;
 *              V++)` (or `++V`); the variables differ; LO and HI hold
 *              only decimal numbers, '+', '-', '*', parentheses and
 *              names of `int` parameters of the function (passed by
 *              value, so nothing in the nest changes them)
 *   the body   of INNER reads as scalar replacement reads one
 *              (mc_cscalar_body(): no jump, call, condition, ...) and
 *              is a list of statements `X[S] OP EXPR;`, OP one of =,
 *              +=, -=, *=, /=, with no other assignment, increment or
 *              comma; every X[S] the body names is the same text, X is
 *              a parameter `T *X` or `T X[]` of scalar type words, and
 *              S is a loop's variable V or `V1 * E + V2` where V2's
 *              loop runs from 0 to E (E a number or a name): distinct
 *              iterations of the loops S names touch distinct elements
 *   the tiles  the two innermost loops are strip-mined; each is a loop
 *              S names or the outermost loop that S does not name
 *
 * When the body reads other arrays or names that are no local scalar,
 * NEEDS_RESTRICT is set and X is a pointer restrict may qualify
 * (mc_cmodel_object_pointer()). The text holds no "mc_bk_V" for a
 * strip-mined loop's V.
 */
int mc_cblock_nest(const char *c, size_t len, const struct mc_cmodel *m,
                   int inner, struct mc_cblock *bk);

/*
 * The tile sizes (16, 32, 64, 128) into SIZES in the order to try them
 * for BK: those whose footprint (arrays x size^2 x element) fits half
 * of the level-2 cache, largest first, then the others, smallest
 * first. The cache sizes are sysconf's (_SC_LEVEL2_CACHE_SIZE,
 * _SC_LEVEL1_DCACHE_SIZE) or /sys/devices/system/cpu/cpu0/cache's;
 * 8 times the level-1 size, or 1 MiB, where the level 2 is unknown.
 */
void mc_cblock_sizes(const struct mc_cblock *bk, int *sizes);

/* A loop header `for (int V = LO; V < HI; V++)` (or `V <= HI`, or
 * ++V), read on one line. */
struct mc_cbound {
    size_t init, init_end; /* "int V = LO" */
    size_t lo, lo_end;     /* "LO" */
    size_t hi, hi_end;     /* "HI" */
    int le;                /* the condition is V <= HI */
};

/* Whether loop L's header in C reads so, into HB. */
int mc_cblock_header(const char *c, const struct mc_cloop *l,
                     struct mc_cbound *hb);

/* Whether C[FROM, TO) is a bound that cblock.h takes in function F:
 * decimal numbers, '+', '-', '*', parentheses and names of `int`
 * parameters of F. */
int mc_cblock_bound(const char *c, const struct mc_cfunc *f, size_t from,
                    size_t to);

#endif /* MC_CBLOCK_H */
